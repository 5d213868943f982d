#include "store/regret.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

constexpr double kEdges[] = {0, 0.25, 0.5, 1, 2, std::numeric_limits<double>::infinity()};

// The q-th quantile of sorted `v` by the nearest rank.
double quantile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

RegretBucket summarize(double low, double high, std::vector<double> regrets) {
  std::sort(regrets.begin(), regrets.end());
  RegretBucket b{low, high, regrets.size()};
  if (regrets.empty()) return b;
  b.median = quantile(regrets, 0.5);
  b.p90 = quantile(regrets, 0.9);
  b.worst = regrets.back();
  return b;
}

}  // namespace

nlohmann::json regret_json(const std::vector<RegretEntry>& entries) {
  nlohmann::json rows = nlohmann::json::array();
  for (const RegretEntry& e : entries)
    rows.push_back({{"family", e.problem.family}, {"dtype", e.problem.dtype}, {"options", e.problem.options},
                    {"dims", e.problem.dims}, {"gpu", e.gpu}, {"tuned_dims", e.tuned_dims}, {"distance", e.distance},
                    {"own", {{"config", e.own_config}, {"params", e.own_params}, {"median_ms", e.own_ms}}},
                    {"nearest", {{"config", e.nearest_config}, {"params", e.nearest_params}, {"median_ms", e.nearest_ms}}},
                    {"regret", e.regret()}});
  return {{"schema", 1}, {"entries", rows}};
}

std::vector<RegretEntry> parse_regret_json(const nlohmann::json& j) {
  try {
    std::vector<RegretEntry> out;
    for (const nlohmann::json& r : j.at("entries")) {
      RegretEntry e;
      r.at("family").get_to(e.problem.family);
      r.at("dtype").get_to(e.problem.dtype);
      r.at("options").get_to(e.problem.options);
      r.at("dims").get_to(e.problem.dims);
      r.at("gpu").get_to(e.gpu);
      r.at("tuned_dims").get_to(e.tuned_dims);
      r.at("distance").get_to(e.distance);
      r.at("own").at("config").get_to(e.own_config);
      r.at("own").at("params").get_to(e.own_params);
      r.at("own").at("median_ms").get_to(e.own_ms);
      r.at("nearest").at("config").get_to(e.nearest_config);
      r.at("nearest").at("params").get_to(e.nearest_params);
      r.at("nearest").at("median_ms").get_to(e.nearest_ms);
      out.push_back(std::move(e));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("regret file: {}", e.what()));
  }
}

std::vector<RegretEntry> read_regret_file(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return {};
  try {
    return parse_regret_json(nlohmann::json::parse(read_file(file)));
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", file.string(), e.what()));
  }
}

void merge_regret_file(const std::filesystem::path& file, const std::vector<RegretEntry>& entries) {
  FileLock lock(file);
  std::vector<RegretEntry> all = read_regret_file(file);
  for (const RegretEntry& e : entries) {
    auto same = [&](const RegretEntry& o) { return o.problem == e.problem && o.gpu == e.gpu; };
    all.erase(std::remove_if(all.begin(), all.end(), same), all.end());
    all.push_back(e);
  }
  write_file_atomic(file, regret_json(all).dump(2) + "\n");
}

std::vector<RegretBucket> regret_buckets(const std::vector<RegretEntry>& entries, const std::string& family) {
  std::vector<RegretBucket> out;
  for (size_t b = 0; b + 1 < std::size(kEdges); ++b) {
    std::vector<double> regrets;
    for (const RegretEntry& e : entries)
      if (e.problem.family == family && e.distance >= kEdges[b] && e.distance < kEdges[b + 1]) regrets.push_back(e.regret());
    out.push_back(summarize(kEdges[b], kEdges[b + 1], std::move(regrets)));
  }
  return out;
}

RegretBucket regret_bucket_at(const std::vector<RegretEntry>& entries, const std::string& family, double distance) {
  for (const RegretBucket& b : regret_buckets(entries, family))
    if (distance >= b.low && distance < b.high) return b;
  return {};
}

}  // namespace ktune
