// The shared tolerance rule: an output as exact as its type allows passes whatever its size (the
// normalized error may reach the type's floor plus the family's tolerance), and one further off
// than that still fails.
#include <gtest/gtest.h>

#include "core/record.hpp"
#include "families/tolerance.hpp"

namespace ktune {
namespace {

const Tolerance kTolerance{1e-3, 1e-2, 1e-3};

// What `ktune softmax --rows 1 --cols 1048576 --dtype fp16` measured: most outputs are about 1e-6,
// below fp16's smallest normal number, so the exact answer stored in fp16 is 2.6e-3 off.
ErrorStats million_column_softmax(double norm_rel) {
  ErrorStats e;
  e.max_abs = 3e-8;
  e.max_rel = 0.03;
  e.norm_rel = norm_rel;
  e.floor_norm_rel = 2.59e-3;
  return e;
}

TEST(Tolerance, AnOutputAtItsTypesFloorPasses) {
  std::string why;
  EXPECT_TRUE(within_tolerance(million_column_softmax(2.59e-3), kTolerance, &why)) << why;
  EXPECT_TRUE(within_tolerance(million_column_softmax(3.5e-3), kTolerance, &why)) << why;
}

TEST(Tolerance, TheOldRuleRejectedIt) {
  ErrorStats e = million_column_softmax(2.59e-3);
  e.floor_norm_rel = 0;  // what every comparison reported before the floor was measured
  std::string why;
  EXPECT_FALSE(within_tolerance(e, kTolerance, &why));
  EXPECT_EQ(why, "normalized error 0.00259 > 0.001");
}

TEST(Tolerance, AnOutputBeyondTheFloorPlusTheToleranceFailsAndSaysBoth) {
  std::string why;
  EXPECT_FALSE(within_tolerance(million_column_softmax(3.7e-3), kTolerance, &why));
  EXPECT_EQ(why, "normalized error 0.0037 > 0.001 + the output type's floor 0.00259");
}

TEST(Tolerance, TheFloorExcusesNoElementAndNoNonFiniteOutput) {
  ErrorStats e = million_column_softmax(2e-3);
  e.mismatches = 1;
  EXPECT_FALSE(within_tolerance(e, kTolerance));
  e.mismatches = 0;
  e.nonfinite = 1;
  EXPECT_FALSE(within_tolerance(e, kTolerance));
}

// A norm's Y and its statistics judged together: the output furthest above its own floor decides,
// so a large floor on one output cannot excuse another output's error.
TEST(Tolerance, WorstOfKeepsTheOutputFurthestAboveItsFloor) {
  ErrorStats y;
  y.norm_rel = 3e-3;
  y.floor_norm_rel = 2.9e-3;
  ErrorStats stats;
  stats.norm_rel = 2e-3;
  stats.floor_norm_rel = 0;
  const ErrorStats both = worst_of(y, stats);
  EXPECT_DOUBLE_EQ(both.norm_rel, 2e-3);
  EXPECT_DOUBLE_EQ(both.floor_norm_rel, 0);
  EXPECT_FALSE(within_tolerance(both, kTolerance));
  EXPECT_TRUE(within_tolerance(worst_of(stats, y), Tolerance{1, 1, 2.5e-3}));
}

}  // namespace
}  // namespace ktune
