// Regression gating: the rank test against scipy, the Hodges-Lehmann interval against hand
// computations, the verdict rules, and `ktune compare` on the committed H100 results (real
// samples): the file against itself is all `same` (exit 0), a planted 5% slowdown is `slower`
// (exit 1), noise that changes nothing is no failure, different devices are an error (exit 2).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bench/compare.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#ifndef KTUNE_SOURCE_DIR
#define KTUNE_SOURCE_DIR "."
#endif
#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {
namespace {

namespace fs = std::filesystem;

const fs::path kH100File = KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json";

// ---- the rank test: scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic")

TEST(MannWhitney, SeparatedSamplesMatchScipy) {
  const RankTest r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 0.012185780355344813, 1e-12);
  EXPECT_LT(r.z, 0);  // x is the smaller one
}

TEST(MannWhitney, TiesMatchScipy) {
  const RankTest r = mann_whitney_u({1, 2, 2, 3, 5, 7}, {2, 3, 3, 4, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.u, 11);
  EXPECT_NEAR(r.p_value, 0.16996790760227598, 1e-12);
}

TEST(MannWhitney, OverlappingTimesMatchScipy) {
  const RankTest r = mann_whitney_u({0.201, 0.199, 0.205, 0.198, 0.210, 0.202, 0.200, 0.207},
                                    {0.204, 0.209, 0.211, 0.206, 0.203, 0.212, 0.208});
  EXPECT_DOUBLE_EQ(r.u, 10);
  EXPECT_NEAR(r.p_value, 0.04284360182801645, 1e-12);
}

TEST(MannWhitney, LargerFirstSampleMatchesScipy) {
  const RankTest r = mann_whitney_u({5, 6, 7, 8, 9, 10, 11}, {1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(r.u, 28);
  EXPECT_NEAR(r.p_value, 0.010733416102997193, 1e-12);
  EXPECT_GT(r.z, 0);
}

TEST(MannWhitney, AllTiedIsNoEvidence) {
  const RankTest r = mann_whitney_u({1, 1, 1}, {1, 1});
  EXPECT_DOUBLE_EQ(r.u, 3);  // scipy: statistic 3.0, pvalue 1.0
  EXPECT_DOUBLE_EQ(r.p_value, 1);
}

TEST(MannWhitney, EmptyInputThrows) { EXPECT_THROW(mann_whitney_u({}, {1}), Error); }

TEST(NormalQuantile, MatchesScipy) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);  // scipy.stats.norm.ppf
  EXPECT_NEAR(normal_quantile(0.995), 2.5758293035489004, 1e-9);
  EXPECT_NEAR(normal_quantile(0.1), -1.2815515655446004, 1e-9);
  EXPECT_THROW(normal_quantile(1), Error);
}

// ---- Hodges-Lehmann estimate and its interval

TEST(RelativeChange, ScaledCopyEstimatesTheScale) {
  // Every pairwise log ratio is log(1.05) + log(a_j / a_i); the second term is symmetric about
  // zero, so the median is exactly log(1.05).
  const std::vector<double> base = {0.2, 0.21, 0.19, 0.25, 0.2, 0.22, 0.18, 0.2, 0.3, 0.205, 0.199};
  std::vector<double> slower;
  for (double s : base) slower.push_back(s * 1.05);
  const ChangeEstimate c = relative_change(base, slower, 0.95);
  EXPECT_NEAR(c.estimate, 0.05, 1e-12);
  EXPECT_LT(c.lo, 0.05);
  EXPECT_GT(c.hi, 0.05);
}

TEST(RelativeChange, MosesIntervalByHand) {
  // base: ten times 1.0; next: e^(j/100), j = 1..10. The 100 pairwise log ratios are j/100, each
  // ten times. n1 = n2 = 10: C = floor(50 - 1.959964 * sqrt(10*10*21/12)) = floor(24.07) = 24,
  // so the interval is the 24th smallest (j = 3) to the 24th largest (j = 8); the estimate is the
  // mean of the 50th and 51st (j = 5 and 6).
  std::vector<double> base(10, 1.0), next;
  for (int j = 1; j <= 10; ++j) next.push_back(std::exp(j / 100.0));
  const ChangeEstimate c = relative_change(base, next, 0.95);
  EXPECT_NEAR(c.estimate, std::expm1(0.055), 1e-12);
  EXPECT_NEAR(c.lo, std::expm1(0.03), 1e-12);
  EXPECT_NEAR(c.hi, std::expm1(0.08), 1e-12);
}

TEST(RelativeChange, TooFewSamplesHaveNoInterval) {
  // n1 = n2 = 2: C = floor(2 - 1.96 * sqrt(5/3)) < 1.
  const ChangeEstimate c = relative_change({1, 1.1}, {1.2, 1.3}, 0.95);
  EXPECT_TRUE(std::isinf(c.lo) && c.lo < 0);
  EXPECT_TRUE(std::isinf(c.hi) && c.hi > 0);
}

TEST(RelativeChange, RejectsNonPositiveSamples) {
  EXPECT_THROW(relative_change({1, 0}, {1, 1}, 0.95), Error);
  EXPECT_THROW(relative_change({1, NAN}, {1, 1}, 0.95), Error);
}

// ---- verdicts on synthetic samples

std::vector<double> noisy(double median, double rel_sd, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(0, rel_sd);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(median * (1 + d(rng)));
  return out;
}

TEST(Judge, VerdictRules) {
  const CompareOptions o;  // 3%, alpha 0.05, 10 samples
  const auto base = noisy(1.0, 0.01, 100, 1);
  EXPECT_EQ(judge(base, noisy(1.0, 0.01, 100, 2), o).verdict, Verdict::same);
  EXPECT_EQ(judge(base, noisy(1.08, 0.01, 100, 3), o).verdict, Verdict::slower);
  EXPECT_EQ(judge(base, noisy(0.92, 0.01, 100, 4), o).verdict, Verdict::faster);
  // 3% slower: significant, but the interval straddles the threshold.
  const SampleVerdict straddle = judge(base, noisy(1.03, 0.01, 100, 5), o);
  EXPECT_EQ(straddle.verdict, Verdict::ambiguous);
  EXPECT_LT(straddle.test.p_value, 0.05);
  // 1% slower with 1% noise: a real change, but within the threshold.
  EXPECT_EQ(judge(base, noisy(1.01, 0.01, 100, 6), o).verdict, Verdict::same);
  // Very noisy and unchanged: cannot rule out 3%, but that is no regression.
  EXPECT_EQ(judge(noisy(1.0, 0.2, 30, 7), noisy(1.0, 0.2, 30, 8), o).verdict, Verdict::ambiguous);
  // 20% slower from five samples a side: too few to judge.
  const SampleVerdict few = judge(noisy(1.0, 0.01, 5, 9), noisy(1.2, 0.01, 5, 10), o);
  EXPECT_EQ(few.verdict, Verdict::ambiguous);
  EXPECT_NE(few.why.find("too few"), std::string::npos);
}

TEST(Judge, ThresholdDecides) {
  CompareOptions o;
  const auto base = noisy(1.0, 0.005, 100, 11);
  const auto slower = noisy(1.05, 0.005, 100, 12);
  EXPECT_EQ(judge(base, slower, o).verdict, Verdict::slower);
  o.threshold = 0.10;
  EXPECT_EQ(judge(base, slower, o).verdict, Verdict::same);
}

// ---- replication units: rounds and their ratios

TEST(RoundUnits, MediansFollowTheRounds) {
  // Rounds of 3, 2 and 1 samples; equal blocks would mix the rounds.
  const std::vector<double> samples = {1, 2, 30, 10, 20, 5};
  EXPECT_EQ(round_medians(samples, {3, 2, 1}), (std::vector<double>{2, 15, 5}));
  EXPECT_THROW(round_medians(samples, {3, 2}), Error);        // a sample left over
  EXPECT_THROW(round_medians(samples, {3, 2, 2}), Error);     // more rounds than samples
  EXPECT_THROW(round_medians(samples, {3, 0, 2, 1}), Error);  // an empty round
}

TEST(RoundUnits, RatiosPairEachRoundWithTheBaselinesSameRound) {
  CandidateRecord kernel, baseline;
  kernel.samples_ms = {2, 2.2, 2, 9, 9, 9.2};  // round 2 ran on slow clocks...
  kernel.rounds = {3, 3};
  baseline.samples_ms = {1, 1.1, 0.9, 1, 4.5, 4.4, 4.6, 4.5};  // ...and so did the baseline's
  baseline.rounds = {4, 4};
  const std::vector<double> ratios = round_ratios(kernel, baseline);
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_DOUBLE_EQ(ratios[0], 2.0 / 1.0);
  EXPECT_DOUBLE_EQ(ratios[1], 9.0 / 4.5);
  baseline.rounds = {2, 2, 4};
  EXPECT_THROW(round_ratios(kernel, baseline), Error);  // 2 rounds against 3
}

// ---- how many rounds a verdict needs

TEST(MinimumRounds, TheRankTestsFloorRulesOutThreeRounds) {
  // Every NEW unit above every BASE unit: the most significant data n units a side can give.
  auto separated = [](size_t n) {
    std::vector<double> base, next;
    for (size_t i = 0; i < n; ++i) {
      base.push_back(1 + 0.001 * static_cast<double>(i));
      next.push_back(1.1 + 0.001 * static_cast<double>(i));
    }
    return std::pair{base, next};
  };
  const auto [b3, n3] = separated(3);
  const auto [b4, n4] = separated(4);
  const auto [b5, n5] = separated(5);
  EXPECT_NEAR(mann_whitney_u(b3, n3).p_value, 0.0808556, 1e-6);  // never below 0.05
  EXPECT_NEAR(mann_whitney_u(b4, n4).p_value, 0.0303828, 1e-6);
  EXPECT_NEAR(mann_whitney_u(b5, n5).p_value, 0.0121858, 1e-6);
  EXPECT_TRUE(std::isinf(relative_change(b3, n3, 0.95).lo));
  for (const auto& [b, n] : {std::pair{b4, n4}, std::pair{b5, n5}}) {
    const ChangeEstimate c = relative_change(b, n, 0.95);
    EXPECT_TRUE(std::isfinite(c.lo) && std::isfinite(c.hi));
    EXPECT_GT(c.lo, 0.03);
  }
  const CompareOptions o;
  const SampleVerdict three = judge_units(b3, n3, 100, 100, o);
  EXPECT_EQ(three.verdict, Verdict::ambiguous);
  EXPECT_NE(three.why.find("too few rounds or blocks (3 / 3)"), std::string::npos) << three.why;
  EXPECT_EQ(judge_units(b5, n5, 100, 100, o).verdict, Verdict::slower);
}

// How often a 5% change of the ratio is flagged when each round's ratio scatters by `sd`
// (relative): the numbers compare.hpp and the README give.
double flagged_share(size_t rounds, double sd, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> scatter(0, sd);
  const CompareOptions o;
  const int trials = 400;
  int flagged = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> base, next;
    for (size_t r = 0; r < rounds; ++r) {
      base.push_back(1 + scatter(rng));
      next.push_back(1.05 * (1 + scatter(rng)));
    }
    flagged += judge_units(base, next, 100, 100, o).verdict == Verdict::slower;
  }
  return static_cast<double>(flagged) / trials;
}

TEST(MinimumRounds, AFivePercentChangeNeedsRoundsOrQuietRatios) {
  EXPECT_EQ(flagged_share(3, 0.005, 1), 0);    // never, however quiet
  EXPECT_GT(flagged_share(5, 0.005, 2), 0.95);  // 5 rounds: only when the ratio scatters ~0.5%
  const double five = flagged_share(5, 0.01, 3), ten = flagged_share(10, 0.01, 4);
  EXPECT_GT(five, 0.5);  // ~63%
  EXPECT_LT(five, 0.8);
  EXPECT_GT(ten, 0.95);  // ~98%
  const double ten_noisy = flagged_share(10, 0.015, 5), twenty_noisy = flagged_share(20, 0.015, 6);
  EXPECT_GT(ten_noisy, 0.6);  // ~71%
  EXPECT_LT(ten_noisy, 0.85);
  EXPECT_GT(twenty_noisy, 0.9);  // ~97%
}

// ---- on the committed H100 file

struct H100 {
  RunInfo info;
  std::vector<ProblemResult> results;
};

const H100& h100() {
  static const H100 data = [] {
    H100 d;
    d.results = read_results(kH100File, &d.info);
    return d;
  }();
  return data;
}

size_t comparable_records(const std::vector<ProblemResult>& results) {
  size_t n = 0;
  for (const auto& r : results)
    for (const auto& rec : r.records) n += rec.disposition == Disposition::passed && !rec.pruned;
  return n;
}

template <typename F>
std::vector<ProblemResult> transformed(F f) {
  std::vector<ProblemResult> out = h100().results;
  for (auto& r : out)
    for (auto& rec : r.records) f(rec);
  return out;
}

const Comparison* row_of(const CompareReport& report, const std::string& source) {
  for (const Comparison& c : report.rows)
    if (c.source == source) return &c;
  return nullptr;
}

TEST(CompareH100, FileAgainstItselfIsSameOrTooNoisyToTell) {
  const H100& d = h100();
  ASSERT_GT(comparable_records(d.results), 20u);
  const CompareReport report = compare_results(d.info, d.results, d.info, d.results, {});
  EXPECT_EQ(report.rows.size(), comparable_records(d.results));
  // A record whose blocks of samples spread by more than the threshold cannot be called `same`
  // within it even against itself: it is ambiguous, never a verdict either way.
  EXPECT_GE(report.count(Verdict::same), report.rows.size() * 9 / 10);
  EXPECT_EQ(report.count(Verdict::same) + report.count(Verdict::ambiguous), report.rows.size());
  EXPECT_EQ(row_of(report, "cublas")->result.verdict, Verdict::same);
  EXPECT_FALSE(report.regression());
  EXPECT_EQ(report.only_in_base, 0u);
  EXPECT_EQ(report.only_in_new, 0u);
  EXPECT_GT(report.pruned, 50u);       // pruned candidates: 5 samples each
  EXPECT_GT(report.not_passed, 1000u);  // ruled out by constraints, spills, ...
  for (const Comparison& c : report.rows) {
    EXPECT_DOUBLE_EQ(c.result.change.estimate, 0) << c.label;
    EXPECT_DOUBLE_EQ(c.result.test.p_value, 1) << c.label;
  }
}

TEST(CompareH100, ReferenceMeasuredTwiceIsNotARegression) {
  // The 100 cuBLAS samples split in two halves, as if the same kernel were measured twice.
  std::vector<ProblemResult> first = h100().results, second = h100().results;
  for (auto* results : {&first, &second})
    for (auto& r : *results)
      for (auto& rec : r.records) {
        if (rec.source != "cublas") {
          rec.disposition = Disposition::not_run;  // only the reference is compared here
          continue;
        }
        const size_t half = rec.samples_ms.size() / 2;
        ASSERT_GE(half, 40u);
        if (results == &first)
          rec.samples_ms.resize(half);
        else
          rec.samples_ms.erase(rec.samples_ms.begin(), rec.samples_ms.begin() + static_cast<std::ptrdiff_t>(half));
      }
  const CompareReport report = compare_results(h100().info, first, h100().info, second, {});
  ASSERT_EQ(report.rows.size(), 1u);
  EXPECT_NE(report.rows[0].result.verdict, Verdict::slower);
  EXPECT_NE(report.rows[0].result.verdict, Verdict::faster);
  EXPECT_FALSE(report.regression());
}

TEST(CompareH100, PlantedFivePercentSlowdownIsFlagged) {
  const H100& d = h100();
  const auto slowed = transformed([](CandidateRecord& rec) {
    if (rec.source == "cublas")
      for (double& s : rec.samples_ms) s *= 1.05;
  });
  const CompareReport report = compare_results(d.info, d.results, d.info, slowed, {});
  const Comparison* ref = row_of(report, "cublas");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(ref->result.verdict, Verdict::slower) << ref->result.why;
  EXPECT_NEAR(ref->result.change.estimate, 0.05, 1e-9);
  EXPECT_LT(ref->result.test.p_value, 1e-3);  // 10 blocks a side: the rank test's floor is ~1.6e-4
  EXPECT_TRUE(report.regression());
  EXPECT_EQ(report.count(Verdict::slower), 1u);
  EXPECT_EQ(report.count(Verdict::faster), 0u);

  // Every kernel 5% slower: most are flagged; none is called faster or same.
  const auto all_slowed = transformed([](CandidateRecord& rec) {
    for (double& s : rec.samples_ms) s *= 1.05;
  });
  const CompareReport all = compare_results(d.info, d.results, d.info, all_slowed, {});
  EXPECT_GT(all.count(Verdict::slower), all.rows.size() / 2);
  EXPECT_EQ(all.count(Verdict::faster), 0u);
  EXPECT_EQ(all.count(Verdict::same), 0u);
}

TEST(CompareH100, NoisyButUnchangedIsNotAFailure) {
  // Symmetric multiplicative noise (2% sd) on every sample, the samples reshuffled, and the
  // slowest few moved to the front: the same kernels, measured on a noisier day.
  std::mt19937 rng(20261121);
  std::normal_distribution<double> noise(0, 0.02);
  const auto shaken = transformed([&](CandidateRecord& rec) {
    for (double& s : rec.samples_ms) s *= 1 + noise(rng);
    std::shuffle(rec.samples_ms.begin(), rec.samples_ms.end(), rng);
    const auto slowest = std::min<std::ptrdiff_t>(3, static_cast<std::ptrdiff_t>(rec.samples_ms.size()));
    std::partial_sort(rec.samples_ms.begin(), rec.samples_ms.begin() + slowest, rec.samples_ms.end(), std::greater<>());
  });
  const H100& d = h100();
  const CompareReport report = compare_results(d.info, d.results, d.info, shaken, {});
  EXPECT_EQ(report.rows.size(), comparable_records(d.results));
  EXPECT_EQ(report.count(Verdict::slower), 0u);
  EXPECT_EQ(report.count(Verdict::faster), 0u);
  EXPECT_FALSE(report.regression());
  EXPECT_GT(report.count(Verdict::same), report.rows.size() / 2);
}

TEST(CompareH100, KernelThatStopsPassingIsAFailure) {
  const H100& d = h100();
  const auto broken = transformed([](CandidateRecord& rec) {
    if (rec.source != "cublas") return;
    rec.disposition = Disposition::incorrect;
    rec.reason = "max abs error 0.5";
  });
  const CompareReport report = compare_results(d.info, d.results, d.info, broken, {});
  const Comparison* ref = row_of(report, "cublas");
  ASSERT_NE(ref, nullptr);
  EXPECT_EQ(ref->result.verdict, Verdict::failed);
  EXPECT_NE(ref->result.why.find("incorrect"), std::string::npos);
  EXPECT_TRUE(report.regression());
}

TEST(CompareH100, DifferentDevicesAreAnErrorUnlessAllowed) {
  const H100& d = h100();
  RunInfo other = d.info;
  other.device.name = "NVIDIA H200";
  other.device.sm_count = 132;
  EXPECT_THROW(compare_results(d.info, d.results, other, d.results, {}), ConfigError);
  CompareOptions allow;
  allow.allow_different_devices = true;
  const CompareReport report = compare_results(d.info, d.results, other, d.results, allow);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes[0].find("NVIDIA H200"), std::string::npos);
  RunInfo fewer_sms = d.info;
  fewer_sms.device.sm_count = 114;
  EXPECT_THROW(compare_results(d.info, d.results, fewer_sms, d.results, {}), ConfigError);
}

// ---- matching on small bench-like files

CandidateRecord timed(const std::string& source, Bindings params, std::vector<double> samples) {
  CandidateRecord rec;
  rec.source = source;
  rec.params = std::move(params);
  rec.kernel_name = source == "cublas" ? "cublasGemmEx" : "ktune_gemm_mma<...>";
  rec.disposition = Disposition::passed;
  rec.samples_ms = std::move(samples);
  return rec;
}

ProblemResult bench_problem(int m, Bindings params, double ktune_ms, double cublas_ms) {
  ProblemResult r;
  r.problem = Problem{"gemm", {{"M", m}, {"N", m}, {"K", m}}, "fp16", "rr"};
  r.records.push_back(timed("cublas", {}, noisy(cublas_ms, 0.005, 60, m)));
  r.records.push_back(timed("ktune", std::move(params), noisy(ktune_ms, 0.005, 60, m + 1)));
  return r;
}

TEST(CompareMatching, ReTunedConfigurationIsStillComparedWithTheBest) {
  RunInfo info;
  info.device.name = "GPU";
  const std::vector<ProblemResult> base = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0),
                                           bench_problem(4096, {{"BLOCK_M", 128}}, 2.0, 2.0)};
  const std::vector<ProblemResult> next = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0),
                                           bench_problem(4096, {{"BLOCK_M", 64}}, 2.2, 2.0)};
  const CompareReport report = compare_results(info, base, info, next, {});
  ASSERT_EQ(report.rows.size(), 4u);
  EXPECT_EQ(report.only_in_base + report.only_in_new, 0u);
  const Comparison& retuned = report.rows[3];
  EXPECT_EQ(retuned.source, "ktune");
  EXPECT_EQ(retuned.label, "BLOCK_M=128");
  EXPECT_EQ(retuned.new_label, "BLOCK_M=64");
  EXPECT_EQ(retuned.result.verdict, Verdict::slower);
  EXPECT_TRUE(report.rows[2].new_label.empty());  // cuBLAS matched exactly
}

TEST(CompareMatching, UnmatchedProblemsAreCountedNotFailed) {
  RunInfo info;
  const std::vector<ProblemResult> base = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0)};
  const std::vector<ProblemResult> next = {bench_problem(1024, {{"BLOCK_M", 128}}, 1.0, 1.0)};
  const CompareReport report = compare_results(info, base, info, next, {});
  EXPECT_TRUE(report.rows.empty());
  EXPECT_EQ(report.only_in_base, 2u);
  EXPECT_EQ(report.only_in_new, 2u);
  EXPECT_FALSE(report.regression());
}

TEST(CompareMarkdown, SummaryFitsAJobSummary) {
  RunInfo info;
  info.device.name = "NVIDIA H100 80GB HBM3";
  info.command = "ktune bench suites/default.json";
  const std::vector<ProblemResult> base = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0)};
  const std::vector<ProblemResult> next = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.1, 1.0)};
  CompareReport report = compare_results(info, base, info, next, {});
  report.base_name = "base.json";
  report.new_name = "new.json";
  const std::string md = compare_markdown(report);
  EXPECT_EQ(md.rfind("## ktune compare: **regression**", 0), 0u) << md;
  EXPECT_NE(md.find("1 slower, 0 failed, 0 faster, 1 same"), std::string::npos) << md;
  EXPECT_NE(md.find("| **slower** | gemm 2048x2048x2048 fp16 rr | ktune BLOCK_M=128 |"), std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary>1 same</summary>"), std::string::npos) << md;
  EXPECT_NE(md.find("`base.json`"), std::string::npos);
  const std::string table = compare_table(report);
  EXPECT_NE(table.find("REGRESSION"), std::string::npos) << table;
  EXPECT_NE(table.find("slower by more than 3%"), std::string::npos) << table;
}

// ---- the command: exit codes on files written as a run writes them

int run_ktune(const std::string& args) {
  const int status = std::system((std::string(KTUNE_BINARY) + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CompareCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(KTUNE_BINARY)) GTEST_SKIP() << KTUNE_BINARY << " is not built";
    dir_ = fs::temp_directory_path() / ("ktune-compare-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string write(const std::string& stem, const RunInfo& info, const std::vector<ProblemResult>& results) {
    return write_results(dir_, stem, info, results).first.string();
  }
  fs::path dir_;
};

TEST_F(CompareCommand, ExitCodes) {
  const H100& d = h100();
  const std::string base = kH100File.string();
  const std::string md = (dir_ / "summary.md").string();
  EXPECT_EQ(run_ktune("compare " + base + " " + base + " --markdown " + md), 0);
  EXPECT_NE(read_file(md).find("## ktune compare: no regression"), std::string::npos);

  const std::string slowed = write("slowed", d.info, transformed([](CandidateRecord& rec) {
                                     if (rec.source == "cublas")
                                       for (double& s : rec.samples_ms) s *= 1.05;
                                   }));
  EXPECT_EQ(run_ktune("compare " + base + " " + slowed + " --markdown " + md), 1);
  EXPECT_NE(read_file(md).find("## ktune compare: **regression**"), std::string::npos);  // appended
  EXPECT_NE(read_file(md).find("## ktune compare: no regression"), std::string::npos);
  EXPECT_EQ(run_ktune("compare " + base + " " + slowed + " --threshold 10"), 0);

  RunInfo other = d.info;
  other.device.name = "NVIDIA A100-SXM4-80GB";
  const std::string elsewhere = write("elsewhere", other, d.results);
  EXPECT_EQ(run_ktune("compare " + base + " " + elsewhere), 2);
  EXPECT_EQ(run_ktune("compare " + base + " " + elsewhere + " --allow-different-devices"), 0);
  EXPECT_EQ(run_ktune("compare " + base + " " + (dir_ / "missing.json").string()), 2);
}

}  // namespace
}  // namespace ktune
