#include "cuda/device_query.hpp"

#include <cuda_runtime_api.h>

#include "cuda/check.hpp"
#include "cuda/driver.hpp"

namespace ktune::cuda {

DeviceInfo query_device(int ordinal) {
  const DriverApi& api = driver();
  cudaDeviceProp prop{};
  KTUNE_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  auto attribute = [ordinal](cudaDeviceAttr attr) {
    int value = 0;
    KTUNE_CUDA(cudaDeviceGetAttribute(&value, attr, ordinal));
    return value;
  };
  DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = prop.l2CacheSize;
  d.global_mem_bytes = static_cast<int64_t>(prop.totalGlobalMem);
  d.max_smem_per_block_optin = static_cast<int64_t>(prop.sharedMemPerBlockOptin);
  d.max_threads_per_block = prop.maxThreadsPerBlock;
  d.max_regs_per_block = prop.regsPerBlock;
  d.sm_clock_khz = attribute(cudaDevAttrClockRate);
  d.mem_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  d.mem_bus_width_bits = prop.memoryBusWidth;
  KTUNE_CU(api.driver_get_version(&d.driver_version));
  return d;
}

}  // namespace ktune::cuda
