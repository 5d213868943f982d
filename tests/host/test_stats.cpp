// summarize() and percentile_sorted() against values numpy gives for the same samples.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "measure/stats.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

TEST(Stats, OddCountMatchesNumpy) {
  // np.median / np.percentile([5,1,4,2,3], 20|80) / np.std(ddof=1)
  const TimeStats t = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(t.n, 5u);
  EXPECT_DOUBLE_EQ(t.median, 3);
  EXPECT_DOUBLE_EQ(t.mean, 3);
  EXPECT_DOUBLE_EQ(t.min, 1);
  EXPECT_DOUBLE_EQ(t.max, 5);
  EXPECT_DOUBLE_EQ(t.p20, 1.8);
  EXPECT_DOUBLE_EQ(t.p80, 4.2);
  EXPECT_NEAR(t.stdev, std::sqrt(2.5), 1e-12);
}

TEST(Stats, EvenCountInterpolates) {
  const TimeStats t = summarize({4, 3, 2, 1});
  EXPECT_DOUBLE_EQ(t.median, 2.5);
  EXPECT_DOUBLE_EQ(t.p20, 1.6);
  EXPECT_DOUBLE_EQ(t.p80, 3.4);
  EXPECT_NEAR(t.stdev, 1.2909944487358056, 1e-12);
}

TEST(Stats, SingleSampleHasNoSpread) {
  const TimeStats t = summarize({0.25});
  EXPECT_EQ(t.n, 1u);
  EXPECT_DOUBLE_EQ(t.median, 0.25);
  EXPECT_DOUBLE_EQ(t.p20, 0.25);
  EXPECT_DOUBLE_EQ(t.p80, 0.25);
  EXPECT_DOUBLE_EQ(t.stdev, 0);
}

TEST(Stats, StdevSurvivesLargeOffset) {
  // A one-pass sum-of-squares formula loses all digits here.
  const TimeStats t = summarize({1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_NEAR(t.stdev, 1.0, 1e-6);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), Error);
  EXPECT_THROW(summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), Error);
  EXPECT_THROW(summarize({std::numeric_limits<double>::infinity()}), Error);
}

TEST(Stats, PercentileEnds) {
  const std::vector<double> sorted{1, 2, 10};
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 100), 10);
  EXPECT_DOUBLE_EQ(percentile_sorted(sorted, 75), 6);  // h = 1.5 -> 2 + 0.5 * 8
  EXPECT_THROW(percentile_sorted({}, 50), Error);
}

}  // namespace
}  // namespace ktune
