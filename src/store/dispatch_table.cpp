#include "store/dispatch_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "util/error.hpp"

namespace ktune {
namespace {

std::string options_text(const Options& options) {  // "layout=rr", as the C++ table keys them
  std::string text;
  for (const auto& [name, value] : options) text += fmt::format("{}{}={}", text.empty() ? "" : ",", name, value);
  return text;
}

auto order(const DispatchRow& r) { return std::tie(r.family, r.dtype, r.options, r.gpu, r.dims); }

std::string cpp_string(const std::string& s) {  // names, dtypes and kernel names: no control characters
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<DispatchRow> dispatch_table(const std::vector<CacheEntry>& entries) {
  std::map<std::string, DispatchRow> rows;  // by shape and GPU
  for (const CacheEntry& e : entries) {
    DispatchRow r;
    r.family = e.key.family;
    r.dtype = e.key.dtype;
    r.options = e.key.options;
    r.dims = e.key.dims;
    r.gpu = e.key.gpu_name;
    DeviceInfo device;
    device.cc_major = e.key.cc_major;
    device.cc_minor = e.key.cc_minor;
    if (e.key.cc_major > 0) r.arch = device.arch();
    r.config = e.winner_config.empty() ? e.key.config_name : e.winner_config;
    r.kernel_name = e.kernel_name;
    r.params = e.params;
    for (int i = 0; i < 3; ++i) {
      r.grid[i] = e.launch.grid[i];
      r.block[i] = e.launch.block[i];
    }
    r.shared_bytes = e.launch.shared_bytes;
    r.median_ms = e.median_ms;
    const std::string shape = nlohmann::json({r.family, r.dtype, r.options, r.dims, r.gpu}).dump();
    const auto [it, inserted] = rows.emplace(shape, r);
    if (!inserted && (r.median_ms < it->second.median_ms ||
                      (r.median_ms == it->second.median_ms && r.kernel_name < it->second.kernel_name)))
      it->second = r;
  }
  std::vector<DispatchRow> table;
  for (auto& [shape, row] : rows) table.push_back(std::move(row));
  std::sort(table.begin(), table.end(), [](const DispatchRow& a, const DispatchRow& b) { return order(a) < order(b); });
  return table;
}

double shape_distance(const Bindings& asked, const Bindings& tuned) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  if (asked.size() != tuned.size()) return kNever;
  double distance = 0;
  for (const auto& [name, value] : asked) {
    const auto it = tuned.find(name);
    if (it == tuned.end() || value <= 0 || it->second <= 0) return kNever;
    distance += std::abs(std::log2(static_cast<double>(value) / static_cast<double>(it->second)));
  }
  return distance;
}

std::vector<NearestRow> nearest_rows(const std::vector<DispatchRow>& table, const std::string& family,
                                     const std::string& dtype, const Options& options, const Bindings& dims,
                                     const std::string& gpu, size_t count) {
  std::vector<NearestRow> rows;
  for (const DispatchRow& r : table) {
    if (r.family != family || r.dtype != dtype || r.options != options || (!gpu.empty() && r.gpu != gpu)) continue;
    const double d = shape_distance(dims, r.dims);
    if (!std::isinf(d)) rows.push_back(NearestRow{&r, d});
  }
  // Stable: equal distances keep table order, so the first is nearest_row's answer.
  std::stable_sort(rows.begin(), rows.end(), [](const NearestRow& a, const NearestRow& b) { return a.distance < b.distance; });
  if (rows.size() > count) rows.resize(count);
  return rows;
}

std::optional<NearestRow> nearest_row(const std::vector<DispatchRow>& table, const std::string& family,
                                      const std::string& dtype, const Options& options, const Bindings& dims,
                                      const std::string& gpu) {
  std::vector<NearestRow> rows = nearest_rows(table, family, dtype, options, dims, gpu, 1);
  if (rows.empty()) return std::nullopt;
  return rows.front();
}

nlohmann::json dispatch_json(const std::vector<DispatchRow>& table) {
  nlohmann::json rows = nlohmann::json::array();
  for (const DispatchRow& r : table)
    rows.push_back({{"family", r.family},
                    {"dtype", r.dtype},
                    {"options", r.options},
                    {"dims", r.dims},
                    {"gpu", r.gpu},
                    {"arch", r.arch},
                    {"config", r.config},
                    {"kernel_name", r.kernel_name},
                    {"params", r.params},
                    {"grid", r.grid},
                    {"block", r.block},
                    {"shared_bytes", r.shared_bytes},
                    {"median_ms", r.median_ms}});
  return {{"schema", 1}, {"rows", rows}};
}

std::vector<DispatchRow> parse_dispatch_json(const nlohmann::json& j) {
  try {
    if (j.at("schema").get<int>() != 1) throw ConfigError("dispatch table: unknown schema " + j.at("schema").dump());
    std::vector<DispatchRow> table;
    for (const nlohmann::json& row : j.at("rows")) {
      DispatchRow r;
      row.at("family").get_to(r.family);
      row.at("dtype").get_to(r.dtype);
      row.at("options").get_to(r.options);
      row.at("dims").get_to(r.dims);
      row.at("gpu").get_to(r.gpu);
      r.arch = row.value("arch", "");
      row.at("config").get_to(r.config);
      row.at("kernel_name").get_to(r.kernel_name);
      row.at("params").get_to(r.params);
      for (int i = 0; i < 3; ++i) {
        r.grid[i] = row.at("grid").at(i).get<int64_t>();
        r.block[i] = row.at("block").at(i).get<int64_t>();
      }
      row.at("shared_bytes").get_to(r.shared_bytes);
      row.at("median_ms").get_to(r.median_ms);
      table.push_back(std::move(r));
    }
    return table;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("dispatch table: {}", e.what()));
  }
}

std::string dispatch_cpp(const std::vector<DispatchRow>& table, const std::string& generated_by) {
  size_t max_dims = 1, max_params = 1;
  for (const DispatchRow& r : table) {
    max_dims = std::max(max_dims, r.dims.size());
    max_params = std::max(max_params, r.params.size());
  }
  std::string rows;
  for (const DispatchRow& r : table) {
    std::string dims, params;
    for (const auto& [name, value] : r.dims) dims += fmt::format("{{{}, {}}}, ", cpp_string(name), value);
    for (const auto& [name, value] : r.params) params += fmt::format("{{{}, {}}}, ", cpp_string(name), value);
    rows += fmt::format(
        "    {{{}, {}, {}, {}, {{{}}}, {}, {}, {{{}, {}, {}}}, {{{}, {}, {}}}, {}, {{{}}}, {}, {}}},\n",
        cpp_string(r.family), cpp_string(r.dtype), cpp_string(options_text(r.options)), cpp_string(r.gpu), dims,
        r.dims.size(), cpp_string(r.kernel_name), r.grid[0], r.grid[1], r.grid[2], r.block[0], r.block[1],
        r.block[2], r.shared_bytes, params, r.params.size(), r.median_ms);
  }
  // An empty table still needs one array element: a sentinel that kRowCount (0) never reaches.
  if (table.empty()) rows = "    {\"\", \"\", \"\", \"\", {{\"\", 0}}, 0, \"\", {1, 1, 1}, {1, 1, 1}, 0, {{\"\", 0}}, 0, 0.0},\n";
  return fmt::format(R"(// Generated by {} — the tuned table of ktune's cache, and its nearest-shape rule.
#pragma once

#include <cmath>
#include <cstring>

namespace ktune_tuned {{

struct Named {{
  const char* name;
  long long value;
}};

struct Row {{
  const char* family;
  const char* dtype;
  const char* options;  // "name=value,..." sorted by name, e.g. "layout=rr"
  const char* gpu;
  Named dims[{}];  // sorted by name
  int n_dims;
  const char* kernel_name;
  long long grid[3], block[3], shared_bytes;
  Named params[{}];
  int n_params;
  double median_ms;
}};

inline constexpr Row kRows[] = {{
{}}};
inline constexpr int kRowCount = {};

// The row for a shape: same family, dtype and options (and gpu, unless null), dims (n_dims of
// them, sorted by name) nearest by the sum over dimensions of |log2(asked / tuned)|; nullptr if no
// row matches. *distance (if given) is 0 for a tuned shape.
inline const Row* lookup(const char* family, const char* dtype, const char* options, const Named* dims, int n_dims,
                         const char* gpu = nullptr, double* distance = nullptr) {{
  const Row* best = nullptr;
  double best_distance = 0;
  for (int i = 0; i < kRowCount; ++i) {{
    const Row& r = kRows[i];
    if (std::strcmp(r.family, family) || std::strcmp(r.dtype, dtype) || std::strcmp(r.options, options)) continue;
    if (gpu && std::strcmp(r.gpu, gpu)) continue;
    if (r.n_dims != n_dims) continue;
    double d = 0;
    bool same_names = true;
    for (int k = 0; k < n_dims && same_names; ++k) {{
      same_names = !std::strcmp(r.dims[k].name, dims[k].name) && dims[k].value > 0 && r.dims[k].value > 0;
      if (same_names) d += std::fabs(std::log2(double(dims[k].value) / double(r.dims[k].value)));
    }}
    if (!same_names) continue;
    if (!best || d < best_distance) {{
      best = &r;
      best_distance = d;
    }}
  }}
  if (distance) *distance = best_distance;
  return best;
}}

}}  // namespace ktune_tuned
)",
                     generated_by, max_dims, max_params, rows, table.size());
}

}  // namespace ktune
