// How a run takes its samples: which timer, which L2 flush, whether the stream is held, whether
// the GPU idles before each sample. Plain data: the worker's GpuContext applies it
// (gpu/gpu_context.hpp), the timing loop follows it (gpu/timing_loop.hpp), the command line and
// the results files carry it.
#pragma once

#include <string>

namespace ktune {

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

}  // namespace ktune
