// Timing one piece of GPU work the same way for every candidate and for cuBLAS: warm up by time,
// then samples of [L2 flush (outside the timed region), start event, work, end event] until the
// stopping rule says enough (measure/stopping_rule.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "measure/stopping_rule.hpp"
#include "measure/timing_method.hpp"

namespace ktune {

class GpuContext;

struct Measurement {
  std::vector<double> samples_ms;
  StopReason stop = StopReason::keep_going;
};

// `work` enqueues the work on gpu.stream(). best_so_far_ms <= 0 disables pruning.
Measurement measure(GpuContext& gpu, const std::function<void()>& work, const StoppingRule& rule,
                    double warmup_ms, double best_so_far_ms);

// Two pieces of work timed alternately, sample by sample (a b, b a, a b, ...), `samples` of each,
// after `warmup_ms` of the same alternation: both see the same clocks, temperature and power, so
// the ratio of their medians cancels drift at the scale of one sample pair, which turns of their
// own (a whole measurement each) cannot. This is how a kernel meets its baseline in `bench` and in
// the tuner's final.
struct PairedMeasurement {
  std::vector<double> a_ms, b_ms;
};
PairedMeasurement measure_paired(GpuContext& gpu, const std::function<void()>& a, const std::function<void()>& b,
                                 int samples, double warmup_ms);

}  // namespace ktune
