// Timing one piece of GPU work the same way for every candidate and for cuBLAS: warm up by time,
// then samples of [L2 flush (outside the timed region), start event, work, end event] until the
// stopping rule says enough (bench/stopping_rule.hpp).
#pragma once

#include <functional>
#include <vector>

#include "bench/stopping_rule.hpp"

namespace ktune {

class GpuContext;

struct Measurement {
  std::vector<double> samples_ms;
  StopReason stop = StopReason::keep_going;
};

// `work` enqueues the work on gpu.stream(). best_so_far_ms <= 0 disables pruning.
Measurement measure(GpuContext& gpu, const std::function<void()>& work, const StoppingRule& rule,
                    double warmup_ms, double best_so_far_ms);

}  // namespace ktune
