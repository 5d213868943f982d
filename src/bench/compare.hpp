// Regression gating (`ktune compare BASE.json NEW.json`): match the records of two results files
// and decide, record by record, whether ktune's kernel got faster, slower, stayed the same, or
// cannot be told apart from noise. Pure functions, so the host tests pin every verdict down.
//
// What is judged. In a `ktune bench` file each problem holds a baseline record (cuBLAS, source
// "cublas") and ktune's record, both measured in R rounds in which the two alternate sample by
// sample (tune/interleaved.hpp); `rounds` holds how many samples each round took. Clocks and
// temperature move between runs as much as the slowdowns a gate is for: on the lent H100, at its
// power cap, cuBLAS moved by up to 8% between two runs minutes apart
// (results/h100/compare-default-vs-planted-5.txt). A change to ktune never touches
// cuBLAS, so cuBLAS is the control and a kernel is judged by its per-round ratio to it:
//     unit_r = median(kernel samples of round r) / median(baseline samples of round r)
// Round r of both ran interleaved: drift that hits both in a round cancels, and the round is the
// replication unit. The change is that of the ratio (+0.05: 5% slower relative to cuBLAS).
// A record is judged on ratios when, in BASE and in NEW, it and its problem's baseline (passed)
// both carry `rounds`, as many for the kernel as for the baseline. Otherwise (sweep files, files
// written before `rounds`) it is judged on absolute times, the medians of its own rounds or,
// without them, of `blocks` equal consecutive blocks, and a note says how many rows and why.
// The baseline rows are controls, not subjects: shown with their own change on absolute round
// (or block) medians, never a regression. A control whose estimate moved beyond the threshold
// gets a note: the machine's state differs between the runs.
//
// Per record, with BASE units a and NEW units b (positive: ratios or times):
//  - a Mann-Whitney U rank test (two-sided; does one tend to be larger than the other?). Ranks
//    need no normality, and an outlier moves a rank by one, not a mean by a lot;
//  - the Hodges-Lehmann estimate of the change: the median of all n_a x n_b pairwise log(b_j /
//    a_i), reported as a relative change exp(.) - 1 (+0.05 = 5% slower), with its
//    distribution-free confidence interval from the same rank statistic (Moses): order
//    statistics C and N + 1 - C of the pairwise values. Interval and test agree by construction.
// Verdict at threshold t (default 3%) and alpha (default 0.05, a 95% interval):
//    fewer than min_samples samples on either side                      -> ambiguous
//    interval inside [-t, +t]                                            -> same
//    significant (p < alpha) and interval above +t                       -> slower
//    significant and interval below -t                                   -> faster
//    anything else (straddles +-t, or too noisy to rule a change out)    -> ambiguous
// A record that passed in BASE but did not pass in NEW (incorrect, crashed, ...), or whose problem
// and source NEW lacks altogether (a run that stopped early, a problem dropped), is `failed`.
// Only a subject's `slower` and `failed` are regressions: `compare` exits 1 for them, else 0.
//
// How many rounds. Units are few, so the rank test's floor matters: with every NEW unit above
// every BASE unit, p is 0.081 for 3 units a side (never significant: such a row is ambiguous,
// "too few rounds or blocks"), 0.030 for 4, 0.012 for 5, 2e-4 for 10; the 95% interval is
// infinite for 3 and, for 4, starts at the closest pair of units. So 4 rounds is the floor, but
// a 5% change is `slower` only when its whole interval clears 3%, and that depends on how much
// the ratio scatters from round to round (sd): at 1%, 5 rounds a side flag it 63% of the time
// and 10 rounds 98%; at 2%, 18%, 48% and (20 rounds) 83%. With kernel and cuBLAS in turns of
// their own, the H100's ratio scattered 1.5-2% between rounds, and a planted 5% slowdown was
// flagged on 7 of 9 problems at 20 rounds. `bench` now alternates them sample by sample within a
// round (tune/interleaved.hpp), and the scatter fell to about 0.2-1%: with 20 rounds of 20
// samples, a 5% slowdown planted on the GPU was flagged on 9 of 9 problems and an identical
// rerun gave 9 `same` (results/h100/compare-default-vs-*.txt; a host test pins both).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "store/results.hpp"

namespace ktune {

struct RankTest {
  double u = 0;        // U statistic of the first sample (scipy's `statistic`)
  double z = 0;        // standardized, with tie and continuity corrections
  double p_value = 1;  // two-sided
};

// As scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="asymptotic"): normal
// approximation with the tie correction and the 0.5 continuity correction. p = 1 when every
// value is tied. Throws ktune::Error on an empty input.
RankTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y);

struct ChangeEstimate {
  double estimate = 0;  // relative change of `next` against `base`: +0.05 = 5% slower
  double lo = 0, hi = 0;  // the confidence interval; -inf/+inf when the samples are too few for it
};

// Hodges-Lehmann estimate of next/base - 1 with the Moses interval at `confidence` (0.95).
// Throws ktune::Error on an empty input or a sample that is not positive and finite.
ChangeEstimate relative_change(const std::vector<double>& base, const std::vector<double>& next, double confidence);

// The standard normal quantile: normal_quantile(0.975) = 1.959964.
double normal_quantile(double p);

enum class Verdict { same, faster, slower, ambiguous, failed };
const char* to_string(Verdict v);

struct CompareOptions {
  double threshold = 0.03;  // relative change that matters
  double alpha = 0.05;      // significance level; the interval is at 1 - alpha
  size_t min_samples = 10;  // fewer on either side: ambiguous
  size_t blocks = 5;        // without `rounds`: the median of each of this many equal blocks is a
                            // unit (5: the rounds ktune bench took before it recorded them)
  bool allow_different_devices = false;
};

struct SampleVerdict {
  Verdict verdict = Verdict::ambiguous;
  ChangeEstimate change;
  RankTest test;
  std::string why;  // one line, for the table
};

// The medians of `blocks` consecutive, nearly equal blocks of `samples` (all of them when there
// are fewer samples than blocks).
std::vector<double> block_medians(const std::vector<double>& samples, size_t blocks);

// The fewest units a side with which the rank test can reach p < alpha (4 at 0.05).
size_t fewest_units(double alpha);

// The median of each round: `rounds[r]` samples after those of the rounds before. Throws
// ktune::Error when a round is empty or the rounds do not add up to the samples (a broken file).
std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<int>& rounds);

// Per round r: the median of `kernel`'s samples of round r over the median of `baseline`'s (its
// time relative to the baseline's, measured back to back). Throws ktune::Error when the two have
// different numbers of rounds or either's rounds are broken (round_medians).
std::vector<double> round_ratios(const CandidateRecord& kernel, const CandidateRecord& baseline);

// The statistics and the verdict for two sets of replication units (per-round ratios, round or
// block medians) behind `base_samples` and `next_samples` raw samples (min_samples applies to
// those).
SampleVerdict judge_units(const std::vector<double>& base_units, const std::vector<double>& next_units,
                          size_t base_samples, size_t next_samples, const CompareOptions& options);

// judge_units on the medians of options.blocks equal blocks of two sets of raw times.
SampleVerdict judge(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& options);

// What a row's units are: per-round ratios to the problem's baseline, or absolute times.
enum class Basis { ratio, time };


struct Comparison {  // one matched record
  Problem problem;
  std::string source;  // "ktune", "cublas"
  std::string label;   // the parameters ("BLOCK_M=128 ..."), else the kernel name
  std::string new_label;  // set when the configuration differs (a bench file after a new tuning)
  bool control = false;  // the problem's baseline: shown with its change, never a regression
  Basis basis = Basis::time;
  size_t n_base = 0, n_new = 0;          // raw samples
  size_t units_base = 0, units_new = 0;  // what the test saw: rounds or blocks
  double base_median_ms = 0, new_median_ms = 0;
  // Ratio rows: baseline median / kernel median over all samples, as ratio_vs_baseline (> 1:
  // faster than cuBLAS). 0 for time rows.
  double base_x = 0, new_x = 0;
  SampleVerdict result;

  std::string kernel() const;  // "ktune BLOCK_M=128 -> BLOCK_M=64"
};

struct CompareReport {
  std::vector<Comparison> rows;  // in BASE's order
  size_t only_in_base = 0, only_in_new = 0;
  size_t pruned = 0;      // matched, but pruned on a side: a few samples that only say it lost a sweep
  size_t not_passed = 0;  // matched, but never passed in BASE (invalid, failed to compile, ...)
  std::vector<std::string> notes;  // e.g. the devices differ, allowed
  CompareOptions options;
  std::string base_name, new_name;  // how the files are called in the output
  RunInfo base_info, new_info;

  size_t count(Verdict v) const;  // subjects only: controls have no say
  size_t controls() const;
  // How the controls are called: their provider ("cuBLAS") when they share one, else "baseline".
  std::string baselines_name() const;
  bool regression() const { return count(Verdict::slower) + count(Verdict::failed) > 0; }
};

// Matches records by problem + source + kernel name + parameters. A problem whose source has
// exactly one unmatched record on each side (bench files after a re-tuning picked another
// configuration) pairs those two, so ktune's best is still compared with ktune's best. Passed,
// unpruned BASE records whose problem and source have no record in NEW are `failed` rows;
// other unmatched records are only counted. Judges as the comment at the top says.
// Throws ConfigError when the devices differ (name, compute capability or SM count) unless
// options.allow_different_devices; a different driver is only a note.
CompareReport compare_results(const RunInfo& base_info, const std::vector<ProblemResult>& base,
                              const RunInfo& new_info, const std::vector<ProblemResult>& next,
                              const CompareOptions& options);

// A fixed-width table for the terminal, one row per comparison, and a summary line.
std::string compare_table(const CompareReport& report);

// Markdown for a CI job summary ($GITHUB_STEP_SUMMARY): the verdict counts first, then the
// subjects that are not `same`, then the `same` ones and the controls folded away.
std::string compare_markdown(const CompareReport& report);

}  // namespace ktune
