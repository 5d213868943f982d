#include "bench/measure.hpp"

#include <algorithm>
#include <cmath>

#include "cuda/check.hpp"
#include "cuda/resources.hpp"
#include "tune/gpu_context.hpp"

namespace ktune {
namespace {

// Enqueues `count` samples and returns their times once the last one has finished. Enqueuing a
// few at a time keeps the GPU busy without letting the host run far ahead of the stopping rule.
std::vector<double> timed_batch(GpuContext& gpu, const std::function<void()>& work, int count,
                                std::vector<cuda::Event>& events) {
  while (events.size() < static_cast<size_t>(2 * count)) events.emplace_back();
  for (int i = 0; i < count; ++i) {
    gpu.flush_l2();
    KTUNE_CUDA(cudaEventRecord(events[2 * i].get(), gpu.stream()));
    work();
    KTUNE_CUDA(cudaEventRecord(events[2 * i + 1].get(), gpu.stream()));
  }
  KTUNE_CUDA(cudaEventSynchronize(events[2 * count - 1].get()));
  std::vector<double> ms(count);
  for (int i = 0; i < count; ++i) {
    float t = 0;
    KTUNE_CUDA(cudaEventElapsedTime(&t, events[2 * i].get(), events[2 * i + 1].get()));
    ms[i] = t;
  }
  return ms;
}

}  // namespace

Measurement measure(GpuContext& gpu, const std::function<void()>& work, const StoppingRule& rule,
                    double warmup_ms, double best_so_far_ms) {
  std::vector<cuda::Event> events;
  // Warmup by time, with the same flushes as the timed samples: module load, clocks and caches
  // settle before anything counts.
  double estimate = timed_batch(gpu, work, 1, events)[0];
  double warmed = estimate;
  while (warmed < warmup_ms) {
    int count = std::clamp(static_cast<int>((warmup_ms - warmed) / std::max(estimate, 1e-3)), 1, 64);
    auto ms = timed_batch(gpu, work, count, events);
    for (double t : ms) warmed += t;
    estimate = ms.back();
  }

  Measurement m;
  while (true) {
    // About 2 ms of work per batch, so the rule is consulted often on slow kernels.
    int count = std::clamp(static_cast<int>(2.0 / std::max(estimate, 1e-3)), 1, 16);
    for (double t : timed_batch(gpu, work, count, events)) {
      m.samples_ms.push_back(t);
      m.stop = should_stop(rule, m.samples_ms, best_so_far_ms);
      if (m.stop != StopReason::keep_going) return m;
    }
    estimate = m.samples_ms.back();
  }
}

}  // namespace ktune
