// The best-config cache: for each (kernel source, problem, GPU, driver, NVRTC) the winning
// parameters of the last sweep, so a later run can reuse them without tuning again.
//
// One JSON file ({"schema": 1, "entries": [...]}, default default_cache_dir()/best_configs.json)
// shared by every ktune process of a user. Each change takes a FileLock, re-reads the file (another
// process may have written it), edits and writes it back atomically, so concurrent sweeps never
// lose each other's entries and a killed process never leaves half a file. A corrupt file is moved
// aside to <file>.corrupt-<UTC time> with a warning and treated as empty: never fatal, never
// silently overwritten. A file this ktune cannot use without destroying it (unreadable, or written
// by a newer schema) reads as empty with a warning, and changing it throws ktune::Error.
// One object is not meant for use by several threads at once; give each thread its own.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.hpp"

namespace ktune {

struct CacheKey {
  // kernel_hash: hex64(fnv1a64(...)) of everything the sweep is made of: each config's text, its
  // kernel source and every header offered to it (tune/tuner.cpp, sweeps_cache_key).
  std::string family, config_name, kernel_hash;
  std::string dtype;
  Options options;  // gemm: {"layout": "rr"}
  Bindings dims;  // M, N, K
  std::string gpu_name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int driver_version = 0;
  std::string nvrtc_version;
  // How candidates were judged and built: tolerances and compile flags ("atol=0.005;rtol=0.005;
  // norm_tol=0.001;allow_spills=0"). A winner chosen under looser rules is never served to a
  // stricter run. Entries written before it existed read as "" and match nothing.
  std::string settings;

  // Canonical, stable, single line: "family=gemm;config=gemm_mma;kernel=...;dtype=fp16;
  // layout=rr;dims=K=4096,M=4096,N=4096;gpu=NVIDIA H100 80GB HBM3;cc=9.0;sms=132;
  // driver=13000;nvrtc=13.0". For display and ordering; identity is operator==.
  std::string str() const;
  bool operator==(const CacheKey&) const = default;
};

// The key for a problem on a device; `sweep_text` is everything the sweep is made of (hashed).
CacheKey make_cache_key(const Problem& problem, const DeviceInfo& device, std::string config_name,
                        std::string_view sweep_text, std::string nvrtc_version, std::string settings);

struct CacheEntry {
  CacheKey key;
  std::string winner_config;  // the sweep config the winner came from (a key may cover several)
  Bindings params;
  std::string kernel_name;
  Launch launch;
  double median_ms = 0, tflops = 0, gbps = 0, ratio_vs_baseline = 0;
  std::string created_at;  // ISO-8601 UTC
  std::string ktune_version;
  // How the winner was searched for: "exhaustive", or the plan of a predicted search ("40 of 289
  // valid candidates, ..."). Entries from before predicted searches read as "exhaustive".
  std::string search = "exhaustive";
  bool exhaustive() const { return search == "exhaustive"; }
};

// Reading is strict about the key and params (an entry without them cannot be trusted) and
// throws nlohmann::json::exception or ktune::Error.
void to_json(nlohmann::json& j, const CacheKey& k);
void from_json(const nlohmann::json& j, CacheKey& k);
void to_json(nlohmann::json& j, const CacheEntry& e);
void from_json(const nlohmann::json& j, CacheEntry& e);

class BestConfigCache {
 public:
  explicit BestConfigCache(std::filesystem::path file);

  std::optional<CacheEntry> find(const CacheKey& key) const;
  void put(const CacheEntry& entry);  // replaces the entry with the same key
  std::vector<CacheEntry> list() const;  // ordered by key.str()
  size_t erase_if(const std::function<bool(const CacheEntry&)>& pred);  // how many were removed
  size_t clear();                                                       // how many were removed
  // Replaces every entry by edit(the entries now), under the lock: a read-modify-write no other
  // process's change can slip into (ktune merge).
  void rewrite(const std::function<std::vector<CacheEntry>(std::vector<CacheEntry>)>& edit);
  const std::filesystem::path& path() const { return path_; }

  // Warnings since the last call, e.g. "cache file X was corrupt (...); moved it to
  // X.corrupt-20261121T101500Z". Each distinct message once.
  std::vector<std::string> take_warnings();

 private:
  std::vector<CacheEntry> load_for_reading() const;
  std::vector<CacheEntry> load_for_writing();  // call with the FileLock held
  void save(std::vector<CacheEntry> entries);  // likewise
  void warn(std::string message) const;

  std::filesystem::path path_;
  mutable std::vector<std::string> warnings_;
};

}  // namespace ktune
