#include "gpu/cooldown.hpp"

#include <chrono>
#include <thread>

#include "cuda/check.hpp"
#include "gpu/gpu_context.hpp"

namespace ktune {

void cool_down(GpuContext& gpu, double ms) {
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

}  // namespace ktune
