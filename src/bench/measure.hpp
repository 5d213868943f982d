// Timing one piece of GPU work the same way for every candidate and for cuBLAS: warm up by time,
// then samples of [L2 flush (outside the timed region), start event, work, end event] until the
// stopping rule says enough (bench/stopping_rule.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "bench/stopping_rule.hpp"

namespace ktune {

class GpuContext;

// How samples are taken (docs/measurement.md); the same for every candidate and the
// baseline of a run.
struct TimingMethod {
  // "events": cudaEventElapsedTime around each sample. "cupti": the GPU's own start/end stamps of
  // the sample's kernels, summed (CUPTI activity records, the quantity ncu reports).
  std::string timer = "events";
  // The L2 flush before each sample: "write" (memset 2x L2, which leaves L2 full of dirty lines the
  // timed kernel must write back as it evicts them) or "read" (read 2x L2, clean lines).
  std::string l2_flush = "write";
  // Hold the stream with a kernel that waits on a host flag until a whole batch of samples is
  // enqueued (as nvbench does), so host launch overhead never shows inside an event interval.
  // On by default: without it cuBLAS's heavier host path leaked 1-2% into its short samples
  // (docs/measurement.md, "Does it agree with other timers?").
  bool hold = true;
  // Idle time before every sample (0: none). A GPU under sustained load runs at its power-capped
  // clocks; one that idled a few milliseconds starts the next kernel at its burst clocks, which is
  // what a profiler's replay (ncu) measures. With a cooldown each sample is an isolated launch.
  double cooldown_ms = 0;
};

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
