// The baseline and one or more compiled kernels measured in rounds. In round r each kernel takes
// one turn (in a rotating order): a full worker run in which the kernel and the baseline alternate
// sample by sample (gpu/timing_loop.hpp, measure_paired), so both see the same clocks, temperature
// and power. Each record says how many samples each round took (CandidateRecord::rounds), so a
// gate can pair round r of a kernel with round r of the baseline it was timed against. Every turn
// checks outputs on poisoned buffers before and after its samples, and inputs for writes.
//
// Used by `ktune bench` (the cached winner against the baseline) and by the tuner's final
// (the few candidates within noise of the best, before anything is cached or printed).
#pragma once

#include <vector>

#include "core/record.hpp"
#include "tune/session.hpp"

namespace ktune {

struct InterleavedOptions {
  int rounds = 5;
  int samples = 100;         // per party, split evenly over the rounds
  double warmup_ms = 25;     // before each turn; the first baseline turn gets at least first_warmup_ms
  double plant_delay = 0;    // > 0: the kernels run that fraction slower (gate self-tests)
  // The GPU may be coming out of idle clocks before the first turn; a caller that has just kept
  // it busy (a sweep's final) may pass less.
  double first_warmup_ms = 200;
};

struct Interleaved {
  // In the order given; a kernel that failed a turn keeps that turn's disposition and takes no
  // further turns. baselines[j] holds the baseline samples taken alternately with kernels[j]'s.
  std::vector<CandidateRecord> kernels, baselines;
};

// `compiled`: records ready to run (compile.ok). The problem must be set on the session.
Interleaved measure_interleaved(Session& session, const std::vector<CandidateRecord>& compiled,
                                const InterleavedOptions& options);

}  // namespace ktune
