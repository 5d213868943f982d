#include "cuda/launch_check.hpp"

#include <fmt/format.h>

#include "cuda/check.hpp"

namespace ktune::cuda {

std::string prepare_launch(const DriverApi& api, CUfunction f, const Launch& l, const DeviceInfo& device) {
  const int64_t threads = l.block[0] * l.block[1] * l.block[2];
  int max_threads = 0, regs = 0, static_smem = 0;
  KTUNE_CU(api.func_get_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  KTUNE_CU(api.func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  KTUNE_CU(api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  if (threads > max_threads)
    return fmt::format("{} threads per block requested; with {} registers per thread this kernel allows {}", threads,
                       regs, max_threads);
  const int64_t limit = device.max_smem_per_block_optin;
  if (l.shared_bytes + static_smem > limit)
    return fmt::format("needs {} bytes of shared memory ({} dynamic + {} static); the device allows {}",
                       l.shared_bytes + static_smem, l.shared_bytes, static_smem, limit);
  const CUresult r =
      api.func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(l.shared_bytes));
  if (r != CUDA_SUCCESS)
    return fmt::format("cannot raise dynamic shared memory to {} bytes: {}", l.shared_bytes, driver_error_name(r));
  // Clusters of more than 8 blocks (the portable limit) run only where a kernel opts in; H100
  // takes 16. Where the device refuses, the launch itself fails and says so.
  if (device.cc_major >= 9) (void)api.func_set_attribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
  return "";
}

}  // namespace ktune::cuda
