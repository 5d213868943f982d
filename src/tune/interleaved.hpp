// The baseline and one or more compiled kernels measured in turns: round r times each of them
// once, the baseline first in even rounds and last in odd ones (R K K R R K ... for one kernel),
// the kernels in an order that rotates. Clocks and temperature drift during a run; in turns they
// hit every party alike instead of whichever was measured last, and the record of each party says
// how many samples each round took (CandidateRecord::rounds), so a gate can pair round r of a
// kernel with round r of its baseline. Every turn is a full worker run: outputs poisoned and
// checked before and after the timed samples, inputs checked for writes.
//
// Used by `ktune bench` (the cached winner against the baseline) and by the tuner's final
// (the few candidates within noise of the best, before anything is cached or printed).
#pragma once

#include <vector>

#include "tune/record.hpp"
#include "tune/session.hpp"

namespace ktune {

struct InterleavedOptions {
  int rounds = 5;
  int samples = 100;         // per party, split evenly over the rounds
  double warmup_ms = 25;     // before each turn; the first baseline turn gets at least 200 ms
  double plant_delay = 0;    // > 0: the kernels run that fraction slower (gate self-tests)
};

struct Interleaved {
  CandidateRecord baseline;
  std::vector<CandidateRecord> kernels;  // in the order given; a kernel that failed a turn keeps
                                         // that turn's disposition and takes no further turns
};

// `compiled`: records ready to run (compile.ok). The problem must be set on the session.
Interleaved measure_interleaved(Session& session, const std::vector<CandidateRecord>& compiled,
                                const InterleavedOptions& options);

}  // namespace ktune
