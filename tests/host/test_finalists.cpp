// Which candidates of a sweep enter the final (tune/tuner.hpp, pick_finalists).
#include <gtest/gtest.h>

#include "tune/tuner.hpp"

namespace ktune {
namespace {

CandidateRecord timed(double median_ms, Disposition d = Disposition::passed, bool pruned = false) {
  CandidateRecord r;
  r.disposition = d;
  r.pruned = pruned;
  r.time = TimeStats{};
  r.time->median = median_ms;
  return r;
}

// The final's entrants: passed and unpruned only, fastest first, the best two always, then those
// within the margin, at most `count`.
TEST(PickFinalists, FastestPassedWithinTheMarginAndAlwaysTheRunnerUp) {
  std::vector<CandidateRecord> r = {timed(1.10), timed(1.00), timed(0.90, Disposition::incorrect),
                                    timed(1.02), timed(0.95, Disposition::passed, /*pruned=*/true),
                                    timed(1.01), timed(1.20)};
  EXPECT_EQ(pick_finalists(r, 4, 0.03), (std::vector<size_t>{1, 5, 3}));
  EXPECT_EQ(pick_finalists(r, 2, 0.03), (std::vector<size_t>{1, 5}));
  // A flattered best: nothing within 1%, the runner-up still runs.
  EXPECT_EQ(pick_finalists(r, 4, 0.001), (std::vector<size_t>{1, 5}));
  EXPECT_EQ(pick_finalists({timed(1.0)}, 4, 0.03), (std::vector<size_t>{0}));
  EXPECT_TRUE(pick_finalists({timed(1.0, Disposition::incorrect)}, 4, 0.03).empty());
}

}  // namespace
}  // namespace ktune
