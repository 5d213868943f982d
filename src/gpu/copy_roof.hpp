// The copy roof as a baseline: what the device's own copy engine achieves on the traffic a
// memory-bound problem must move. One cudaMemcpyAsync of half the problem's minimum bytes between
// two buffers of that size reads and writes, together, exactly its bytes; its time against a
// candidate's is then the candidate's GB/s over the copy's, counted the same way as `ktune
// ceilings` counts the copy bandwidth (bytes read + written). It computes nothing of the problem,
// so its output is not checked (BaselineInfo::checks_output).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/resources.hpp"
#include "core/baseline.hpp"

namespace ktune {

class CopyRoof {
 public:
  explicit CopyRoof(int64_t problem_bytes);
  BaselineInfo info() const;
  void run(cudaStream_t stream);
  // The device memory a CopyRoof for `problem_bytes` takes (families count it in device_bytes()).
  static int64_t device_bytes(int64_t problem_bytes);

 private:
  size_t half_bytes_;
  cuda::DeviceBuffer src_, dst_;
};

}  // namespace ktune
