// Regression gating: the rank test against scipy, the Hodges-Lehmann interval against hand
// computations, the verdict rules, the per-round units and how many rounds a verdict needs;
// bench files measured in rounds with seeded noise, drawn independently for BASE and NEW: drift
// that moves cuBLAS and ktune alike is no regression, a real 5% slowdown under that drift is,
// unchanged kernels never are, a problem missing from NEW fails, files without rounds fall back
// to absolute times; `ktune compare` on the committed H100 results (real samples; bench runs in
// 5, 10 and 20 rounds with a slowdown planted) and its exit codes (0 no regression, 1
// regression, 2 bad input).
#include <fmt/format.h>
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
#include "families/family.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {
namespace {

namespace fs = std::filesystem;

const fs::path kH100File = KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json.gz";

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
  // 2%, as most problems of the default suite scatter on the H100: rounds decide.
  const double five_h100 = flagged_share(5, 0.02, 5), ten_h100 = flagged_share(10, 0.02, 6),
               twenty_h100 = flagged_share(20, 0.02, 7);
  EXPECT_LT(five_h100, 0.3);  // ~18%
  EXPECT_GT(ten_h100, 0.35);  // ~48%
  EXPECT_LT(ten_h100, 0.6);
  EXPECT_GT(twenty_h100, 0.7);  // ~83%
}

// ---- on the committed H100 files

size_t notes_with(const CompareReport& report, const std::string& text) {
  return static_cast<size_t>(std::count_if(report.notes.begin(), report.notes.end(),
                                           [&](const std::string& n) { return n.find(text) != std::string::npos; }));
}


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
  EXPECT_EQ(report.controls(), 1u);
  const size_t subjects = report.rows.size() - 1;
  // A record whose blocks of samples spread by more than the threshold cannot be called `same`
  // within it even against itself: it is ambiguous, never a verdict either way. (5 blocks, as
  // the 5 rounds bench took, leave wider intervals than the 10 half-rounds did before.)
  EXPECT_GE(report.count(Verdict::same), subjects * 8 / 10);
  EXPECT_EQ(report.count(Verdict::same) + report.count(Verdict::ambiguous), subjects);
  EXPECT_TRUE(row_of(report, "cublas")->control);
  EXPECT_EQ(row_of(report, "cublas")->result.verdict, Verdict::same);
  // A sweep file has no rounds: every kernel is judged on absolute times, and the report says so.
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_EQ(report.notes[0],
            fmt::format("BASE and NEW have no round structure: {} rows judged on absolute times", subjects));
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

TEST(CompareH100, ReferenceThatMovesIsAControlNotARegression) {
  // cuBLAS 5% slower in NEW and nothing else changed: a change to ktune cannot do that, the
  // machine did. The control shows it; the gate passes.
  const H100& d = h100();
  const auto slowed = transformed([](CandidateRecord& rec) {
    if (rec.source == "cublas")
      for (double& s : rec.samples_ms) s *= 1.05;
  });
  const CompareReport report = compare_results(d.info, d.results, d.info, slowed, {});
  const Comparison* ref = row_of(report, "cublas");
  ASSERT_NE(ref, nullptr);
  EXPECT_TRUE(ref->control);
  EXPECT_NEAR(ref->result.change.estimate, 0.05, 1e-9);
  EXPECT_FALSE(report.regression());
  EXPECT_EQ(report.count(Verdict::slower), 0u);
  EXPECT_NE(report.notes.back().find("cuBLAS moved +5.0% between runs"), std::string::npos) << report.notes.back();
}

// The default suite benched three times in a row on the H100 (results/h100/bench-default.json,
// bench-rerun.json, bench-planted-5.json: 20 rounds of 20 paired samples per problem), the third
// time with every tuned kernel made 5% slower on the GPU by `--plant-delay 5` (a calibrated spin
// inside the timed interval, measured +4.0% to +7.0%): real samples, real drift between runs.
std::vector<ProblemResult> h100_run(const std::string& stem, RunInfo* info) {
  return read_results(std::string(KTUNE_SOURCE_DIR) + "/results/h100/" + stem + ".json.gz", info);
}

TEST(CompareH100, ARerunIsNoRegressionAndAPlantedSlowdownIsCaughtEverywhere) {
  RunInfo base_info, rerun_info, planted_info;
  const auto base = h100_run("bench-default", &base_info);
  const auto rerun = h100_run("bench-rerun", &rerun_info);
  const auto planted = h100_run("bench-planted-5", &planted_info);

  const CompareReport same = compare_results(base_info, base, rerun_info, rerun, {});
  ASSERT_EQ(same.rows.size(), 18u);
  EXPECT_FALSE(same.regression()) << compare_table(same);
  EXPECT_EQ(same.count(Verdict::slower) + same.count(Verdict::faster), 0u) << compare_table(same);
  for (const Comparison& c : same.rows) {
    EXPECT_EQ(c.basis, c.control ? Basis::time : Basis::ratio) << describe(c.problem);
    if (!c.control) EXPECT_EQ(c.units_base, 20u) << describe(c.problem);
  }

  const CompareReport slowed = compare_results(base_info, base, planted_info, planted, {});
  EXPECT_TRUE(slowed.regression());
  EXPECT_EQ(slowed.count(Verdict::slower), 9u) << compare_table(slowed);  // every problem
  for (const Comparison& c : slowed.rows)
    if (!c.control) EXPECT_GT(c.result.change.lo, 0.03) << describe(c.problem);
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
    if (rec.source != "ktune") return;
    rec.disposition = Disposition::incorrect;
    rec.reason = "max abs error 0.5";
  });
  const CompareReport report = compare_results(d.info, d.results, d.info, broken, {});
  const Comparison* kernel = row_of(report, "ktune");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->result.verdict, Verdict::failed);
  EXPECT_NE(kernel->result.why.find("incorrect"), std::string::npos);
  EXPECT_EQ(report.count(Verdict::failed), report.rows.size() - 1);  // every kernel but the control
  EXPECT_TRUE(report.regression());

  // cuBLAS failing is shown, but a change to ktune did not do it: no regression by itself.
  const auto reference_broken = transformed([](CandidateRecord& rec) {
    if (rec.source == "cublas") rec.disposition = Disposition::incorrect;
  });
  const CompareReport control = compare_results(d.info, d.results, d.info, reference_broken, {});
  EXPECT_EQ(row_of(control, "cublas")->result.verdict, Verdict::failed);
  EXPECT_FALSE(control.regression());
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
  rec.role = source == "cublas" ? Role::baseline : Role::candidate;
  rec.params = std::move(params);
  rec.kernel_name = source == "cublas" ? "cublasGemmEx" : "ktune_gemm_mma<...>";
  rec.disposition = Disposition::passed;
  rec.samples_ms = std::move(samples);
  return rec;
}

// A bench problem without rounds (as bench wrote before it recorded them); `seed` apart for
// BASE and NEW, so that no comparison sees the same noise twice.
ProblemResult bench_problem(int m, Bindings params, double ktune_ms, double cublas_ms, uint32_t seed) {
  ProblemResult r;
  r.problem = Problem{"gemm", {{"M", m}, {"N", m}, {"K", m}}, "fp16", {{"layout", "rr"}}};
  r.records.push_back(timed("cublas", {}, noisy(cublas_ms, 0.005, 60, seed)));
  r.records.push_back(timed("ktune", std::move(params), noisy(ktune_ms, 0.005, 60, seed + 1)));
  return r;
}

TEST(CompareMatching, ReTunedConfigurationIsStillComparedWithTheBest) {
  RunInfo info;
  info.device.name = "GPU";
  const std::vector<ProblemResult> base = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0, 1),
                                           bench_problem(4096, {{"BLOCK_M", 128}}, 2.0, 2.0, 3)};
  const std::vector<ProblemResult> next = {bench_problem(2048, {{"BLOCK_M", 128}}, 1.0, 1.0, 5),
                                           bench_problem(4096, {{"BLOCK_M", 64}}, 2.2, 2.0, 7)};
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

// ---- bench files measured in rounds: synthetic, with seeded noise drawn apart for BASE and NEW

// The state of the machine during one run. Each round, kernel and cuBLAS run back to back on the
// same clocks: one drift factor, uniform in ±drift, moves both; every sample then has its own
// noise.
struct Machine {
  double speed = 1;     // 1.05: everything 5% slower than in the other run
  double drift = 0.03;  // between rounds
  double noise = 0.01;  // within a round, per sample (relative sd)
};

// Nine problems with cuBLAS and ktune times (ms) in the range of the default suite on the H100.
const std::vector<std::pair<double, double>> kSuite = {{0.0285, 0.0351}, {0.208, 0.239}, {1.67, 1.76},
                                                       {0.0796, 0.100},  {0.0316, 0.0359}, {0.904, 2.71},
                                                       {0.200, 0.231},   {0.375, 0.849},  {0.212, 0.237}};

// What `ktune bench` writes for kSuite: per problem a cuBLAS and a ktune record, both in `rounds`
// rounds of `per_round` samples; ktune's times scaled by `ktune_factor` (1.05: a real slowdown).
std::vector<ProblemResult> bench_run(const Machine& machine, double ktune_factor, int rounds, int per_round,
                                     uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> drift(-machine.drift, machine.drift);
  std::normal_distribution<double> noise(0, machine.noise);
  std::vector<ProblemResult> run;
  for (size_t i = 0; i < kSuite.size(); ++i) {
    const int m = 1024 * static_cast<int>(i + 1);
    ProblemResult r;
    r.problem = Problem{"gemm", {{"M", m}, {"N", m}, {"K", m}}, "fp16", {{"layout", "rr"}}};
    CandidateRecord cublas = timed("cublas", {}, {}), ktune = timed("ktune", {{"BLOCK_M", 128}}, {});
    for (int round = 0; round < rounds; ++round) {
      const double clocks = machine.speed * (1 + drift(rng));
      for (int s = 0; s < per_round; ++s) {
        cublas.samples_ms.push_back(kSuite[i].first * clocks * (1 + noise(rng)));
        ktune.samples_ms.push_back(kSuite[i].second * ktune_factor * clocks * (1 + noise(rng)));
      }
    }
    cublas.rounds.assign(static_cast<size_t>(rounds), per_round);
    ktune.rounds = cublas.rounds;
    r.records = {std::move(cublas), std::move(ktune)};
    run.push_back(std::move(r));
  }
  return run;
}

RunInfo bench_info() {
  RunInfo info;
  info.device.name = "NVIDIA H100 80GB HBM3";
  info.command = "ktune bench suites/default.json --rounds 10";
  return info;
}

TEST(CompareRounds, DriftThatMovesKernelAndCublasAlikeIsNoRegression) {
  // NEW ran on a machine 5% slower in every round (clocks, temperature, a neighbour's job).
  const auto base = bench_run({}, 1.0, 10, 10, 101);
  const auto next = bench_run({.speed = 1.05}, 1.0, 10, 10, 202);
  const CompareReport report = compare_results(bench_info(), base, bench_info(), next, {});
  ASSERT_EQ(report.rows.size(), 18u);
  size_t moved = 0;  // controls whose estimate left ±3%: each gets a note
  for (const Comparison& c : report.rows) {
    if (c.control) {
      EXPECT_EQ(c.source, "cublas");
      EXPECT_GT(c.result.change.estimate, 0.02) << describe(c.problem);  // it did move
      moved += c.result.change.estimate > 0.03;
    } else {
      EXPECT_EQ(c.basis, Basis::ratio);
      EXPECT_EQ(c.result.verdict, Verdict::same) << describe(c.problem) << ": " << c.result.why;
      EXPECT_NEAR(c.new_x / c.base_x, 1, 0.02);
    }
  }
  EXPECT_FALSE(report.regression());
  EXPECT_GE(moved, 7u);
  EXPECT_EQ(notes_with(report, "cuBLAS moved +"), moved);
  EXPECT_EQ(notes_with(report, "ratios cancel it"), moved);

  // The same files judged on absolute times (their rounds dropped) blame ktune for the machine.
  auto without_rounds = [](std::vector<ProblemResult> run) {
    for (ProblemResult& r : run)
      for (CandidateRecord& rec : r.records) rec.rounds.clear();
    return run;
  };
  const CompareReport timed_report =
      compare_results(bench_info(), without_rounds(base), bench_info(), without_rounds(next), {});
  EXPECT_GT(timed_report.count(Verdict::slower), 0u);
  EXPECT_EQ(notes_with(timed_report, "BASE and NEW have no round structure: 9 rows judged on absolute times"), 1u);
}

TEST(CompareRounds, RealSlowdownUnderDriftIsFlagged) {
  // ktune 5% slower; ±3% drift between rounds and 1% noise within them, in both runs.
  for (const auto& [rounds, per_round] : {std::pair{10, 10}, std::pair{5, 20}}) {
    const auto base = bench_run({}, 1.0, rounds, per_round, 303);
    const auto next = bench_run({}, 1.05, rounds, per_round, 404);
    const CompareReport report = compare_results(bench_info(), base, bench_info(), next, {});
    EXPECT_EQ(report.count(Verdict::slower), 9u) << rounds << " rounds\n" << compare_table(report);
    for (const Comparison& c : report.rows) {
      if (c.control) continue;
      EXPECT_EQ(c.units_base, static_cast<size_t>(rounds));
      EXPECT_NEAR(c.result.change.estimate, 0.05, 0.01);
      EXPECT_NEAR(c.base_x / c.new_x, 1.05, 0.02);
    }
    EXPECT_TRUE(report.regression());
  }
}

TEST(CompareRounds, UnchangedKernelsAreNeverSlower) {
  // The same distributions, drawn with different seeds: 20 pairs of runs.
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const auto base = bench_run({}, 1.0, 10, 10, seed);
    const auto next = bench_run({}, 1.0, 10, 10, seed + 1000);
    const CompareReport report = compare_results(bench_info(), base, bench_info(), next, {});
    EXPECT_EQ(report.count(Verdict::slower) + report.count(Verdict::faster), 0u) << "seed " << seed;
    EXPECT_GE(report.count(Verdict::same), 8u) << "seed " << seed << "\n" << compare_table(report);
    EXPECT_FALSE(report.regression());
  }
}

TEST(CompareRounds, ProblemMissingFromNewIsAFailure) {
  const auto base = bench_run({}, 1.0, 10, 10, 505);
  auto next = bench_run({}, 1.0, 10, 10, 606);
  next.erase(next.begin() + 2);                 // a run that lost a problem
  next[4].records.pop_back();                   // and another problem's ktune record
  const CompareReport report = compare_results(bench_info(), base, bench_info(), next, {});
  EXPECT_EQ(report.count(Verdict::failed), 2u);
  for (const Comparison& c : report.rows) {
    if (c.result.verdict == Verdict::failed) {
      EXPECT_EQ(c.result.why, "missing from NEW");
    }
  }
  EXPECT_TRUE(report.rows[4].control);  // the lost problem's cuBLAS: shown failed, no say
  EXPECT_EQ(report.rows[4].result.verdict, Verdict::failed);
  EXPECT_EQ(report.rows[5].result.verdict, Verdict::failed);
  EXPECT_TRUE(report.regression());
  EXPECT_NE(compare_table(report).find("missing from NEW"), std::string::npos);

  // A problem that only NEW has is counted, not judged.
  auto extra = bench_run({}, 1.0, 10, 10, 707);
  extra.push_back(bench_problem(99, {{"BLOCK_M", 64}}, 1.0, 1.0, 9));
  EXPECT_EQ(compare_results(bench_info(), base, bench_info(), extra, {}).only_in_new, 2u);
}

TEST(CompareRounds, FilesWithoutRoundsFallBackToAbsoluteTimes) {
  const auto with_rounds = bench_run({}, 1.0, 10, 10, 808);
  auto without = with_rounds;
  for (ProblemResult& r : without)
    for (CandidateRecord& rec : r.records) rec.rounds.clear();
  const CompareReport old_base = compare_results(bench_info(), without, bench_info(), with_rounds, {});
  ASSERT_EQ(old_base.notes.size(), 1u);
  EXPECT_EQ(old_base.notes[0], "BASE has no round structure: 9 rows judged on absolute times");
  for (const Comparison& c : old_base.rows) {
    EXPECT_EQ(c.basis, Basis::time);
    EXPECT_EQ(c.units_base, 5u);  // --blocks equal blocks
    EXPECT_EQ(c.units_new, 10u);  // NEW's own rounds
    EXPECT_EQ(c.base_x, 0);
  }
  const CompareReport old_new = compare_results(bench_info(), with_rounds, bench_info(), without, {});
  EXPECT_EQ(notes_with(old_new, "NEW has no round structure: 9 rows"), 1u);

  // Rounds that do not pair up, or a baseline that did not pass: those problems fall back alone.
  auto odd = with_rounds;
  odd[0].records[1].rounds = std::vector<int>(5, 20);  // ktune in 5 rounds, cuBLAS in 10
  odd[1].records[0].disposition = Disposition::incorrect;
  const CompareReport mixed = compare_results(bench_info(), with_rounds, bench_info(), odd, {});
  EXPECT_EQ(notes_with(mixed, "NEW's kernel and baseline took different numbers of rounds: 1 row judged"), 1u);
  EXPECT_EQ(notes_with(mixed, "NEW's cuBLAS baseline did not pass: 1 row judged"), 1u);
  EXPECT_EQ(mixed.rows[1].basis, Basis::time);
  EXPECT_EQ(mixed.rows[5].basis, Basis::ratio);
  EXPECT_FALSE(mixed.regression());  // the failed cuBLAS is a control

  // Rounds that do not add up to the samples: a broken file, not a verdict.
  auto broken = with_rounds;
  broken[0].records[1].rounds.back() += 1;
  EXPECT_THROW(compare_results(bench_info(), with_rounds, bench_info(), broken, {}), ConfigError);
}

TEST(CompareMarkdown, SummaryFitsAJobSummary) {
  RunInfo info = bench_info();
  const std::vector<ProblemResult> base = {bench_run({}, 1.0, 10, 10, 11)[0]};
  const std::vector<ProblemResult> next = {bench_run({}, 1.1, 10, 10, 12)[0]};
  CompareReport report = compare_results(info, base, info, next, {});
  report.base_name = "base.json";
  report.new_name = "new.json";
  const std::string md = compare_markdown(report);
  EXPECT_EQ(md.rfind("## ktune compare: **regression**", 0), 0u) << md;
  EXPECT_NE(md.find("1 slower, 0 failed, 0 faster, 0 same, 0 ambiguous; 1 cuBLAS control"), std::string::npos) << md;
  EXPECT_NE(md.find("| **slower** | gemm 1024x1024x1024 fp16 rr | ktune BLOCK_M=128 | ratio |"), std::string::npos)
      << md;
  const Comparison& kernel = report.rows[1];
  EXPECT_NEAR(kernel.base_x, 0.0285 / 0.0351, 0.01);  // cuBLAS median / ktune median
  EXPECT_NEAR(kernel.new_x, 0.0285 / (0.0351 * 1.1), 0.01);
  EXPECT_NE(md.find(fmt::format("| {:.3f}x | {:.3f}x |", kernel.base_x, kernel.new_x)), std::string::npos) << md;
  EXPECT_NE(md.find("<details><summary>1 cuBLAS control (never a regression)</summary>"), std::string::npos) << md;
  EXPECT_NE(md.find("| BASE x cuBLAS | NEW x cuBLAS |"), std::string::npos) << md;
  EXPECT_NE(md.find("`base.json`"), std::string::npos);
  const std::string table = compare_table(report);
  EXPECT_NE(table.find("REGRESSION"), std::string::npos) << table;
  EXPECT_NE(table.find("slower by more than 3%"), std::string::npos) << table;
  EXPECT_NE(table.find("control "), std::string::npos) << table;
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
  const std::string h100_file = kH100File.string();
  const std::string md = (dir_ / "summary.md").string();
  EXPECT_EQ(run_ktune("compare " + h100_file + " " + h100_file + " --markdown " + md), 0);
  EXPECT_NE(read_file(md).find("## ktune compare: no regression"), std::string::npos);

  // cuBLAS slower and nothing else: the control moved, no kernel did.
  const std::string reference_slowed = write("reference-slowed", d.info, transformed([](CandidateRecord& rec) {
                                               if (rec.source == "cublas")
                                                 for (double& s : rec.samples_ms) s *= 1.05;
                                             }));
  EXPECT_EQ(run_ktune("compare " + h100_file + " " + reference_slowed), 0);

  // Bench files in rounds, written and read back as a run does (the rounds survive the JSON).
  const RunInfo info = bench_info();
  const std::string base = write("base", info, bench_run({}, 1.0, 10, 10, 21));
  const std::string drifted = write("drifted", info, bench_run({.speed = 1.05}, 1.0, 10, 10, 22));
  const std::string slowed = write("slowed", info, bench_run({}, 1.05, 10, 10, 23));
  auto partial = bench_run({}, 1.0, 10, 10, 24);
  partial.pop_back();
  const std::string stopped_early = write("stopped-early", info, partial);
  EXPECT_EQ(run_ktune("compare " + base + " " + drifted), 0);
  EXPECT_EQ(run_ktune("compare " + base + " " + slowed + " --markdown " + md), 1);
  EXPECT_NE(read_file(md).find("## ktune compare: **regression**"), std::string::npos);  // appended
  EXPECT_NE(read_file(md).find("## ktune compare: no regression"), std::string::npos);
  EXPECT_EQ(run_ktune("compare " + base + " " + slowed + " --threshold 10"), 0);
  EXPECT_EQ(run_ktune("compare " + base + " " + stopped_early), 1);

  RunInfo other = d.info;
  other.device.name = "NVIDIA A100-SXM4-80GB";
  const std::string elsewhere = write("elsewhere", other, d.results);
  EXPECT_EQ(run_ktune("compare " + h100_file + " " + elsewhere), 2);
  EXPECT_EQ(run_ktune("compare " + h100_file + " " + elsewhere + " --allow-different-devices"), 0);
  EXPECT_EQ(run_ktune("compare " + h100_file + " " + (dir_ / "missing.json").string()), 2);
}

}  // namespace
}  // namespace ktune
