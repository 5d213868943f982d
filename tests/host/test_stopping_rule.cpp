// should_stop(): every way out of the timing loop, in the order the rule checks them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "measure/stopping_rule.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

std::vector<double> repeat(double v, int n) { return std::vector<double>(n, v); }

// Stable samples around `center` with a 0.4% spread, deterministic.
std::vector<double> steady(double center, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * (1.0 + 0.001 * (i % 5)));
  return out;
}

TEST(StoppingRule, NeverBeforeMinSamples) {
  StoppingRule rule;
  rule.min_time_ms = 0;
  EXPECT_EQ(should_stop(rule, repeat(1.0, 9), 0), StopReason::keep_going);
  EXPECT_EQ(should_stop(rule, repeat(1.0, 10), 0), StopReason::converged);
}

TEST(StoppingRule, NeverBeforeMinTime) {
  StoppingRule rule;  // min_time_ms = 50
  EXPECT_EQ(should_stop(rule, repeat(1.0, 49), 0), StopReason::keep_going);
  EXPECT_EQ(should_stop(rule, repeat(1.0, 50), 0), StopReason::converged);
}

TEST(StoppingRule, EmptyKeepsGoing) {
  EXPECT_EQ(should_stop(StoppingRule{}, {}, 1.0), StopReason::keep_going);
}

TEST(StoppingRule, NoisySamplesDoNotConverge) {
  std::vector<double> s;
  for (int i = 0; i < 100; ++i) s.push_back(i % 2 ? 2.0 : 1.0);
  EXPECT_EQ(should_stop(StoppingRule{}, s, 0), StopReason::keep_going);
  EXPECT_GT(median_relative_error(s), 0.005);
}

TEST(StoppingRule, OutliersDoNotBlockConvergence) {
  // 5% of samples 50x slower (preemption): the stdev explodes, the IQR does not move.
  std::vector<double> s = steady(1.0, 190);
  for (int i = 0; i < 10; ++i) s.push_back(50.0);
  EXPECT_EQ(should_stop(StoppingRule{}, s, 0), StopReason::converged);
  EXPECT_LT(median_relative_error(s), 0.005);
}

TEST(StoppingRule, MedianRelativeErrorFormula) {
  // IQR of 1..5 is 4 - 2 = 2; 1.2533 * (2 / 1.349) / sqrt(5) / median 3.
  const double expected = 1.2533 * (2.0 / 1.349) / std::sqrt(5.0) / 3.0;
  EXPECT_NEAR(median_relative_error({5, 4, 3, 2, 1}), expected, 1e-12);
  EXPECT_TRUE(std::isinf(median_relative_error({0, 0, 0})));
  EXPECT_TRUE(std::isinf(median_relative_error({})));
}

TEST(StoppingRule, MaxTimeStopsNoisyCandidate) {
  std::vector<double> s;
  for (int i = 0; i < 100; ++i) s.push_back(i % 2 ? 15.0 : 5.0);  // sums to 1000 ms
  EXPECT_EQ(should_stop(StoppingRule{}, s, 0), StopReason::max_time);
  s.pop_back();
  EXPECT_EQ(should_stop(StoppingRule{}, s, 0), StopReason::keep_going);
}

TEST(StoppingRule, MaxTimeEvenBeforeMinSamples) {
  // One launch that takes longer than the whole budget: do not run it nine more times.
  EXPECT_EQ(should_stop(StoppingRule{}, {1500.0}, 0), StopReason::max_time);
}

TEST(StoppingRule, MaxSamples) {
  StoppingRule rule;
  rule.max_samples = 30;
  std::vector<double> s;
  for (int i = 0; i < 30; ++i) s.push_back(i % 2 ? 0.02 : 0.01);
  EXPECT_EQ(should_stop(rule, s, 0), StopReason::max_samples);
  s.pop_back();
  EXPECT_EQ(should_stop(rule, s, 0), StopReason::keep_going);
}

TEST(StoppingRule, PrunesClearlySlowerCandidate) {
  StoppingRule rule;
  EXPECT_EQ(should_stop(rule, repeat(2.0, 5), 1.0), StopReason::pruned);
  EXPECT_EQ(should_stop(rule, repeat(2.0, 4), 1.0), StopReason::keep_going);  // too few to judge
}

TEST(StoppingRule, DoesNotPruneWithinFactorOrWithoutBest) {
  StoppingRule rule;
  EXPECT_EQ(should_stop(rule, repeat(1.29, 5), 1.0), StopReason::keep_going);
  EXPECT_EQ(should_stop(rule, repeat(2.0, 5), 0), StopReason::keep_going);
  EXPECT_EQ(should_stop(rule, repeat(2.0, 5), -1), StopReason::keep_going);
  EXPECT_EQ(should_stop(rule, repeat(2.0, 5), std::nan("")), StopReason::keep_going);
}

TEST(StoppingRule, PruneLooksAtFastSamples) {
  // Median 2.0, but p20 (h = 1.8 of 0..9) sits among the fast samples, which match the best:
  // a slow tail, not a slow kernel. One fast sample fewer and p20 moves up to 1.8: pruned.
  std::vector<double> s{1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0};
  EXPECT_EQ(should_stop(StoppingRule{}, s, 1.0), StopReason::keep_going);
  s[2] = 2.0;
  EXPECT_EQ(should_stop(StoppingRule{}, s, 1.0), StopReason::pruned);
}

TEST(StoppingRule, Names) {
  EXPECT_STREQ(to_string(StopReason::keep_going), "keep_going");
  EXPECT_STREQ(to_string(StopReason::converged), "converged");
  EXPECT_STREQ(to_string(StopReason::max_time), "max_time");
  EXPECT_STREQ(to_string(StopReason::max_samples), "max_samples");
  EXPECT_STREQ(to_string(StopReason::pruned), "pruned");
}

TEST(StoppingRule, Validate) {
  EXPECT_NO_THROW(validate(StoppingRule{}));
  StoppingRule bad;
  bad.max_samples = 5;  // < min_samples 10
  try {
    validate(bad);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("max_samples"), std::string::npos) << e.what();
  }
  bad = StoppingRule{};
  bad.prune_factor = 0.9;
  EXPECT_THROW(validate(bad), ConfigError);
  bad = StoppingRule{};
  bad.noise_target = 0;
  EXPECT_THROW(validate(bad), ConfigError);
}

}  // namespace
}  // namespace ktune
