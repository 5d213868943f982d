// Per-sample GPU busy time from activity records (cuda/cupti_timer.hpp collects them): the time
// the GPU spent in the work itself, without the launch gaps and event overhead that
// cudaEventElapsedTime includes. It is what ncu's gpu__time_duration reports per kernel, summed
// over a sample's kernels, so ktune's numbers can be set beside a profiler's.
//
// The timing loop (gpu/timing_loop.cpp) enqueues per sample: L2-flush memset, start event, work
// (one kernel, or several: cuBLAS may add a split-K reduction; or a copy: the copy roof is a
// cudaMemcpyAsync), end event. Events leave no activity records, so the flush memsets are what
// mark where one sample ends and the next begins.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ktune {

// One activity record: what ran on the GPU and when (GPU timestamps, ns).
struct ActivitySpan {
  enum class Kind { kernel, memset, memcpy };
  Kind kind = Kind::kernel;
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
  uint64_t bytes = 0;           // memsets: bytes set; memcpys: bytes copied
  uint32_t correlation_id = 0;  // ties the record to the API call that launched it
  uint32_t stream_id = 0;
  std::string name;             // kernels: the (mangled) kernel name

  bool operator==(const ActivitySpan&) const = default;
};

struct SampleTime {
  uint64_t busy_ns = 0;  // sum of (end - start) over the sample's kernels, copies and non-marker memsets
  int kernels = 0;
  int copies = 0;        // memcpys (the copy roof's cudaMemcpyAsync)
  int memsets = 0;       // memsets inside the work (not the marker), e.g. a zeroed output
  bool has_work() const { return kernels + copies > 0; }
  double busy_ms() const { return static_cast<double>(busy_ns) * 1e-6; }
};

// Sorts `spans` by start time (CUPTI delivers buffers in no promised order) and splits them at
// marker memsets: each marker starts a sample, and everything after it until the next marker
// belongs to that sample. A marker is a memset of `marker_bytes` bytes (the L2 flush buffer's
// size), or any memset when marker_bytes is 0. Telling markers apart by size matters: a library
// may memset inside its own work (cuBLAS zeroing an output for a split-K reduction), and that
// memset is part of the work's cost, not a sample boundary.
//
// Spans before the first marker belong to no sample and are dropped (work from before the timed
// loop). A sample with no spans after its marker is kept with kernels == 0, so sample i here stays
// sample i of the loop (warmup samples included: the caller matches them to its own, e.g. the
// last N). Overlapping spans (work on several streams) are summed, not merged, as ncu's
// per-kernel durations would be.
std::vector<SampleTime> split_into_samples(std::vector<ActivitySpan> spans, uint64_t marker_bytes);

}  // namespace ktune
