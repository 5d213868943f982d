// Merging best-config caches, as the shards of a job array write them (one cache each): the union
// of their entries, and for a key two caches share, the entry measured faster. Keys name the GPU,
// so entries of different devices never replace each other; a merge that would put several GPU
// models in one cache is refused unless asked for (a table served to one fleet should come from
// its own GPUs). The result does not depend on the order of the inputs.
#pragma once

#include <string>
#include <vector>

#include "store/cache.hpp"

namespace ktune {

struct CacheMerge {
  std::vector<CacheEntry> entries;  // ordered by key.str()
  size_t replaced = 0;              // entries that lost to a faster one under the same key
  std::vector<std::string> devices;  // the GPUs the entries were measured on, sorted
};

// Throws ConfigError when the entries come from more than one GPU model (name, compute
// capability and SM count) and allow_mixed_devices is false.
CacheMerge merge_caches(const std::vector<std::vector<CacheEntry>>& inputs, bool allow_mixed_devices);

}  // namespace ktune
