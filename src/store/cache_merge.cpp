#include "store/cache_merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <tuple>

#include "util/error.hpp"

namespace ktune {
namespace {

std::string device_of(const CacheKey& k) {
  return fmt::format("{} (cc {}.{}, {} SMs)", k.gpu_name, k.cc_major, k.cc_minor, k.sm_count);
}

// Whether `a` should be kept over `b` (same key): the faster, then, so that the input order
// never decides, the earlier measured, then the smaller serialized entry.
bool preferred(const CacheEntry& a, const CacheEntry& b) {
  if (a.median_ms != b.median_ms) return a.median_ms < b.median_ms;
  if (a.created_at != b.created_at) return a.created_at < b.created_at;
  return nlohmann::json(a).dump() < nlohmann::json(b).dump();
}

}  // namespace

CacheMerge merge_caches(const std::vector<std::vector<CacheEntry>>& inputs, bool allow_mixed_devices) {
  std::map<std::string, CacheEntry> by_key;
  std::set<std::string> devices;
  CacheMerge merged;
  for (const std::vector<CacheEntry>& input : inputs)
    for (const CacheEntry& e : input) {
      devices.insert(device_of(e.key));
      const auto [it, inserted] = by_key.emplace(e.key.str(), e);
      if (inserted) continue;
      ++merged.replaced;
      if (preferred(e, it->second)) it->second = e;
    }
  merged.devices.assign(devices.begin(), devices.end());
  if (devices.size() > 1 && !allow_mixed_devices)
    throw ConfigError(fmt::format("the caches hold entries of {} GPU models ({}); merge them per GPU, or pass "
                                  "--allow-mixed-devices",
                                  devices.size(), fmt::join(merged.devices, "; ")));
  for (auto& [key, entry] : by_key) merged.entries.push_back(std::move(entry));
  return merged;
}

}  // namespace ktune
