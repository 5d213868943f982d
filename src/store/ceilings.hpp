// A device's ceilings, the roofs of a roofline: how fast it can move bytes (a large
// device-to-device copy, bytes read + written per second) and how fast cuBLAS computes per dtype
// on a large square GEMM. `ktune ceilings` measures them (tune/ceilings_probe.hpp) and keeps them
// per device in <cache dir>/ceilings.json; reports read them from there, or fall back to datasheet
// values (report/datasheet.hpp), which say so in `source`.
//
// File: {"schema": 1, "devices": [{"key": "...", "device": {...DeviceInfo...},
//                                  "ceilings": {...Ceilings...}}]}
// keyed by GPU name, compute capability, SM count and driver version (ceilings_key), because a
// driver update can move cuBLAS's peak and a cut-down part of the same name has fewer SMs. Changes
// take a FileLock and are written atomically, like the best-config cache.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/record.hpp"

namespace ktune {

// How one ceiling was measured: what ran, how much work one run is, and its timing.
struct CeilingProbe {
  std::string what;  // "cudaMemcpyAsync device-to-device, 1024 MiB", "cublasGemmEx ... 8192x8192x8192"
  double work = 0;   // bytes read + written, or flops, per run
  TimeStats time;
};

struct Ceilings {
  std::string source;       // "measured" | "datasheet"
  std::string label;        // measured: the device's name; datasheet: the part whose sheet it is
  std::string measured_at;  // ISO-8601 UTC; measured only
  double copy_gbps = 0;     // memory roof, GB/s (1e9 bytes/s), bytes read + written
  std::map<std::string, double> tflops;        // compute roof by problem dtype: fp16, bf16, fp32 (TF32)
  std::map<std::string, CeilingProbe> probes;  // "copy" and each dtype; measured only
};

void to_json(nlohmann::json& j, const CeilingProbe& p);
void from_json(const nlohmann::json& j, CeilingProbe& p);
void to_json(nlohmann::json& j, const Ceilings& c);
void from_json(const nlohmann::json& j, Ceilings& c);

// "NVIDIA H100 80GB HBM3;cc=9.0;sms=132;driver=13000"
std::string ceilings_key(const DeviceInfo& device);

class CeilingsStore {
 public:
  explicit CeilingsStore(std::filesystem::path file);

  // The entry for this device, if any. A missing file has none; a file that cannot be read or
  // parsed throws ktune::ConfigError naming it.
  std::optional<Ceilings> find(const DeviceInfo& device) const;
  // Adds or replaces this device's entry. Throws ktune::Error rather than overwrite a file it
  // cannot parse (someone's measurements).
  void put(const DeviceInfo& device, const Ceilings& ceilings);
  const std::filesystem::path& path() const { return path_; }

 private:
  nlohmann::json load() const;  // {"schema", "devices"}; an empty one when there is no file

  std::filesystem::path path_;
};

}  // namespace ktune
