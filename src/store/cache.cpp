// The best-config cache file: locking, re-reading, atomic rewrite, setting corrupt files aside.
#include "store/cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <system_error>
#include <utility>

#include "store/record_json.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/utc_time.hpp"

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kSchema = 1;

// What reading the file found. `corrupt` files are moved aside; `unusable` ones (unreadable, or
// a newer schema) are left alone because moving them would destroy someone's data.
struct Loaded {
  enum class State { ok, missing, corrupt, unusable } state = State::missing;
  std::vector<CacheEntry> entries;
  std::string problem;  // why it is corrupt or unusable
};

Loaded load_file(const fs::path& path) {
  Loaded out;
  std::error_code ec;
  if (!fs::exists(path, ec) && !ec) return out;
  std::string text;
  try {
    text = read_file(path);
  } catch (const Error& e) {
    out.state = Loaded::State::unusable;
    out.problem = e.what();
    return out;
  }
  auto corrupt = [&](std::string why) {
    out.state = Loaded::State::corrupt;
    out.problem = std::move(why);
    out.entries.clear();
    return out;
  };
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return corrupt("not valid JSON");
  if (!root.is_object()) return corrupt("not a JSON object");
  auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_number_integer()) return corrupt("no integer \"schema\"");
  if (schema->get<int64_t>() > kSchema) {
    out.state = Loaded::State::unusable;
    out.problem = fmt::format("cache file {} has schema {}, newer than this ktune understands ({})",
                              path.string(), schema->get<int64_t>(), kSchema);
    return out;
  }
  if (schema->get<int64_t>() != kSchema) return corrupt(fmt::format("unknown schema {}", schema->dump()));
  auto entries = root.find("entries");
  if (entries == root.end() || !entries->is_array()) return corrupt("no \"entries\" array");
  for (size_t i = 0; i < entries->size(); ++i) {
    try {
      out.entries.push_back((*entries)[i].get<CacheEntry>());
    } catch (const std::exception& e) {  // nlohmann::json::exception or ktune::Error
      return corrupt(fmt::format("entry {}: {}", i, e.what()));
    }
  }
  out.state = Loaded::State::ok;
  return out;
}

// Moves a corrupt file out of the way (never over an earlier one) and says where it went.
std::string set_aside(const fs::path& path, const std::string& problem) {
  const std::string base = path.string() + ".corrupt-" + utc_compact_now();
  fs::path target = base;
  for (int i = 2; fs::exists(target); ++i) target = fmt::format("{}-{}", base, i);
  std::error_code ec;
  fs::rename(path, target, ec);
  if (ec)
    throw Error(fmt::format("cache file {} is corrupt ({}) and cannot be moved aside: {}",
                            path.string(), problem, ec.message()));
  return fmt::format("cache file {} was corrupt ({}); moved it to {}", path.string(), problem,
                     target.string());
}

void sort_by_key(std::vector<CacheEntry>& entries) {
  std::sort(entries.begin(), entries.end(),
            [](const CacheEntry& a, const CacheEntry& b) { return a.key.str() < b.key.str(); });
}

}  // namespace

std::string CacheKey::str() const {
  std::string dims_text;
  for (const auto& [name, value] : dims)
    dims_text += fmt::format("{}{}={}", dims_text.empty() ? "" : ",", name, value);
  std::string options_text;  // ";layout=rr": each option as its own field, as keys always read
  for (const auto& [name, value] : options) options_text += fmt::format(";{}={}", name, value);
  return fmt::format(
      "family={};config={};kernel={};dtype={}{};dims={};gpu={};cc={}.{};sms={};"
      "driver={};nvrtc={};settings={}",
      family, config_name, kernel_hash, dtype, options_text, dims_text, gpu_name, cc_major, cc_minor,
      sm_count, driver_version, nvrtc_version, settings);
}

CacheKey make_cache_key(const Problem& problem, const DeviceInfo& device, std::string config_name,
                        std::string_view sweep_text, std::string nvrtc_version, std::string settings) {
  CacheKey k;
  k.family = problem.family;
  k.config_name = std::move(config_name);
  k.kernel_hash = hex64(fnv1a64(sweep_text));
  k.dtype = problem.dtype;
  k.options = problem.options;
  k.dims = problem.dims;
  k.gpu_name = device.name;
  k.cc_major = device.cc_major;
  k.cc_minor = device.cc_minor;
  k.sm_count = device.sm_count;
  k.driver_version = device.driver_version;
  k.nvrtc_version = std::move(nvrtc_version);
  k.settings = std::move(settings);
  return k;
}

void to_json(json& j, const CacheKey& k) {
  j = json{{"family", k.family},           {"config_name", k.config_name},
           {"kernel_hash", k.kernel_hash}, {"dtype", k.dtype},
           {"options", k.options},         {"dims", k.dims},
           {"gpu_name", k.gpu_name},       {"cc_major", k.cc_major},
           {"cc_minor", k.cc_minor},       {"sm_count", k.sm_count},
           {"driver_version", k.driver_version}, {"nvrtc_version", k.nvrtc_version},
           {"settings", k.settings}};
}

void from_json(const json& j, CacheKey& k) {
  j.at("family").get_to(k.family);
  j.at("config_name").get_to(k.config_name);
  j.at("kernel_hash").get_to(k.kernel_hash);
  j.at("dtype").get_to(k.dtype);
  // Entries written before options existed have GEMM's layout as a field of its own.
  if (j.contains("options"))
    j.at("options").get_to(k.options);
  else
    k.options = {{"layout", j.at("layout").get<std::string>()}};
  j.at("dims").get_to(k.dims);
  j.at("gpu_name").get_to(k.gpu_name);
  j.at("cc_major").get_to(k.cc_major);
  j.at("cc_minor").get_to(k.cc_minor);
  j.at("sm_count").get_to(k.sm_count);
  j.at("driver_version").get_to(k.driver_version);
  j.at("nvrtc_version").get_to(k.nvrtc_version);
  k.settings = j.value("settings", "");
}

void to_json(json& j, const CacheEntry& e) {
  j = json{{"key", e.key},
           {"params", e.params},
           {"kernel_name", e.kernel_name},
           {"launch", e.launch},
           {"median_ms", double_to_json(e.median_ms)},
           {"tflops", double_to_json(e.tflops)},
           {"gbps", double_to_json(e.gbps)},
           {"ratio_vs_baseline", double_to_json(e.ratio_vs_baseline)},
           {"created_at", e.created_at},
           {"winner_config", e.winner_config},
           {"ktune_version", e.ktune_version},
           {"search", e.search}};
}

void from_json(const json& j, CacheEntry& e) {
  j.at("key").get_to(e.key);
  j.at("params").get_to(e.params);
  j.at("kernel_name").get_to(e.kernel_name);
  j.at("launch").get_to(e.launch);
  e.median_ms = double_from_json(j.at("median_ms"));
  e.tflops = double_from_json(j.value("tflops", json(0.0)));
  e.gbps = double_from_json(j.value("gbps", json(0.0)));
  // "ratio_vs_reference": the key's name before 0.1's cache files called the baseline a baseline.
  e.ratio_vs_baseline = double_from_json(j.value("ratio_vs_baseline", j.value("ratio_vs_reference", json(0.0))));
  e.created_at = j.value("created_at", "");
  e.winner_config = j.value("winner_config", e.key.config_name);
  e.ktune_version = j.value("ktune_version", "");
  e.search = j.value("search", "exhaustive");
}

BestConfigCache::BestConfigCache(fs::path file) : path_(std::move(file)) {}

void BestConfigCache::warn(std::string message) const {
  if (std::find(warnings_.begin(), warnings_.end(), message) == warnings_.end())
    warnings_.push_back(std::move(message));
}

std::vector<std::string> BestConfigCache::take_warnings() { return std::exchange(warnings_, {}); }

// Reads need no lock: atomic renames mean we see a whole file. Only a corrupt one needs the lock,
// to move it aside without racing a writer that is replacing it right now.
std::vector<CacheEntry> BestConfigCache::load_for_reading() const {
  Loaded loaded = load_file(path_);
  if (loaded.state == Loaded::State::corrupt) {
    try {
      FileLock lock(path_);
      loaded = load_file(path_);
      if (loaded.state == Loaded::State::corrupt) {
        warn(set_aside(path_, loaded.problem));
        return {};
      }
    } catch (const Error& e) {  // e.g. a read-only shared cache: ignore the file, say so
      warn(fmt::format("{}; ignoring cache file {}", e.what(), path_.string()));
      return {};
    }
  }
  if (loaded.state == Loaded::State::unusable) {
    warn(fmt::format("{}; ignoring it", loaded.problem));
    return {};
  }
  return std::move(loaded.entries);
}

std::vector<CacheEntry> BestConfigCache::load_for_writing() {
  Loaded loaded = load_file(path_);
  if (loaded.state == Loaded::State::corrupt) warn(set_aside(path_, loaded.problem));
  if (loaded.state == Loaded::State::unusable)
    throw Error(fmt::format("{}; not changing it (use another cache folder)", loaded.problem));
  return std::move(loaded.entries);
}

void BestConfigCache::save(std::vector<CacheEntry> entries) {
  sort_by_key(entries);  // so the file diffs cleanly
  json root{{"schema", kSchema}, {"entries", entries}};
  write_file_atomic(path_, root.dump(2) + "\n");
}

std::optional<CacheEntry> BestConfigCache::find(const CacheKey& key) const {
  for (auto& e : load_for_reading())
    if (e.key == key) return std::move(e);
  return std::nullopt;
}

std::vector<CacheEntry> BestConfigCache::list() const {
  std::vector<CacheEntry> entries = load_for_reading();
  sort_by_key(entries);  // a file written by hand need not be sorted
  return entries;
}

void BestConfigCache::put(const CacheEntry& entry) {
  FileLock lock(path_);
  std::vector<CacheEntry> entries = load_for_writing();
  auto same = std::find_if(entries.begin(), entries.end(),
                           [&](const CacheEntry& e) { return e.key == entry.key; });
  if (same != entries.end())
    *same = entry;
  else
    entries.push_back(entry);
  save(std::move(entries));
}

void BestConfigCache::rewrite(const std::function<std::vector<CacheEntry>(std::vector<CacheEntry>)>& edit) {
  FileLock lock(path_);
  save(edit(load_for_writing()));
}

size_t BestConfigCache::erase_if(const std::function<bool(const CacheEntry&)>& pred) {
  FileLock lock(path_);
  std::vector<CacheEntry> entries = load_for_writing();
  const size_t removed = std::erase_if(entries, pred);
  if (removed > 0) save(std::move(entries));
  return removed;
}

size_t BestConfigCache::clear() {
  return erase_if([](const CacheEntry&) { return true; });
}

}  // namespace ktune
