// What ktune knows about the GPU it measures on: enough to key the cache, size the L2 flush and
// pick the compile target.
#pragma once

#include <cstdint>
#include <string>

namespace ktune {

struct DeviceInfo {
  std::string name;          // "NVIDIA H100 80GB HBM3"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  int64_t global_mem_bytes = 0;
  int64_t max_smem_per_block_optin = 0;
  int max_threads_per_block = 0;
  int max_regs_per_block = 0;
  int sm_clock_khz = 0;      // max SM clock reported by the driver
  int mem_clock_khz = 0;
  int mem_bus_width_bits = 0;
  int driver_version = 0;    // cuDriverGetVersion, e.g. 13000
  std::string arch() const;  // "sm_90a" for 9.0 (arch-specific features on), "sm_80", ...
};

}  // namespace ktune
