#include "gpu/event_samples.hpp"

#include "cuda/check.hpp"
#include "gpu/gpu_context.hpp"

namespace ktune {

void enqueue_event_samples(GpuContext& gpu, const std::vector<const std::function<void()>*>& works, int from,
                           int to, std::vector<cuda::Event>& events) {
  while (events.size() < 2 * static_cast<size_t>(to)) events.emplace_back();
  for (int i = from; i < to; ++i) {
    gpu.flush_l2();
    KTUNE_CUDA(cudaEventRecord(events[2 * i].get(), gpu.stream()));
    (*works[i])();
    KTUNE_CUDA(cudaEventRecord(events[2 * i + 1].get(), gpu.stream()));
  }
}

std::vector<double> event_sample_times(std::vector<cuda::Event>& events, int count) {
  KTUNE_CUDA(cudaEventSynchronize(events[2 * count - 1].get()));
  std::vector<double> ms(count);
  for (int i = 0; i < count; ++i) {
    float t = 0;
    KTUNE_CUDA(cudaEventElapsedTime(&t, events[2 * i].get(), events[2 * i + 1].get()));
    ms[i] = t;
  }
  return ms;
}

}  // namespace ktune
