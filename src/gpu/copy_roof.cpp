#include "gpu/copy_roof.hpp"

#include <fmt/format.h>

#include "cuda/check.hpp"

namespace ktune {

namespace {
// Rounded up to whole 256-byte lines, so the copy moves at least the problem's bytes.
size_t half_of(int64_t problem_bytes) { return (static_cast<size_t>(problem_bytes) / 2 + 255) & ~size_t{255}; }
}  // namespace

CopyRoof::CopyRoof(int64_t problem_bytes)
    : half_bytes_(half_of(problem_bytes)), src_(half_bytes_), dst_(half_bytes_) {
  // Written once so the copy reads initialized memory (a first touch may cost page mapping).
  KTUNE_CUDA(cudaMemset(src_.get(), 0x3c, half_bytes_));
  KTUNE_CUDA(cudaMemset(dst_.get(), 0, half_bytes_));
}

BaselineInfo CopyRoof::info() const {
  return {"copy", fmt::format("cudaMemcpyAsync device-to-device, {:.1f} MiB each way (copy roof)",
                              static_cast<double>(half_bytes_) / (1 << 20)),
          /*checks_output=*/false};
}

void CopyRoof::run(cudaStream_t stream) {
  KTUNE_CUDA(cudaMemcpyAsync(dst_.get(), src_.get(), half_bytes_, cudaMemcpyDeviceToDevice, stream));
}

int64_t CopyRoof::device_bytes(int64_t problem_bytes) { return 2 * static_cast<int64_t>(half_of(problem_bytes)); }

}  // namespace ktune
