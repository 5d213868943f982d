// Regression gating: the rank test, the Hodges-Lehmann interval and matching; see compare.hpp
// for the method and the verdict rules (compare_render.cpp prints the report).
#include "bench/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "measure/stats.hpp"
#include "families/family.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

// The k-th smallest (0-based) of v; reorders v.
double order_statistic(std::vector<double>& v, size_t k) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

std::string params_text(const Bindings& params) {
  std::string out;
  for (const auto& [name, value] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string label_of(const CandidateRecord& rec) {
  return rec.params.empty() ? rec.kernel_name : params_text(rec.params);
}

std::string key_of(const Problem& p, const CandidateRecord& rec) {
  return describe(p) + '\x1f' + rec.source + '\x1f' + rec.kernel_name + '\x1f' + params_text(rec.params);
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return percentile_sorted(v, 50);
}

// The rank test's p when every unit of one side lies above every unit of the other: no data on
// n1 and n2 units can be more significant.
double smallest_p(size_t n1, size_t n2) {
  std::vector<double> low, high;
  for (size_t i = 0; i < n1; ++i) low.push_back(static_cast<double>(i));
  for (size_t i = 0; i < n2; ++i) high.push_back(static_cast<double>(n1 + i));
  return mann_whitney_u(low, high).p_value;
}

struct Located {
  size_t problem = 0;
  const CandidateRecord* rec = nullptr;
};

std::string group_of(const Problem& p, const CandidateRecord& rec) { return describe(p) + '\x1f' + rec.source; }

const CandidateRecord* baseline_of(const ProblemResult& p) {
  for (const CandidateRecord& rec : p.records)
    if (rec.is_baseline()) return &rec;
  return nullptr;
}

// Why `rec` cannot be judged by its per-round ratio to its problem's baseline in one file
// (`side`: "BASE" or "NEW"); empty when it can.
std::string why_no_ratio(const ProblemResult& p, const CandidateRecord& rec, const char* side) {
  const CandidateRecord* baseline = baseline_of(p);
  if (!baseline) return fmt::format("{} has no baseline for the problem", side);
  if (baseline->disposition != Disposition::passed || baseline->samples_ms.empty())
    return fmt::format("{}'s {} baseline did not pass", side, provider_name(baseline->source));
  if (rec.rounds.empty() || baseline->rounds.empty()) return fmt::format("{} has no round structure", side);
  if (rec.rounds.size() != baseline->rounds.size())
    return fmt::format("{}'s kernel and baseline took different numbers of rounds", side);
  return "";
}

// A record's absolute-time units: its round medians, else the medians of `blocks` equal blocks.
std::vector<double> time_units(const CandidateRecord& rec, size_t blocks) {
  return rec.rounds.empty() ? block_medians(rec.samples_ms, blocks) : round_medians(rec.samples_ms, rec.rounds);
}

// Fills c's NEW side and verdict from two passed records. A subject is judged on per-round ratios
// when both files allow it, else on absolute times and `why_time[reason]` counts it.
void judge_row(Comparison& c, const ProblemResult& base_problem, const CandidateRecord& old,
               const ProblemResult& new_problem, const CandidateRecord& now, const CompareOptions& o,
               std::map<std::string, size_t>& why_time) {
  c.n_new = now.samples_ms.size();
  c.new_median_ms = median_of(now.samples_ms);
  std::string why;
  if (!c.control) {
    why = why_no_ratio(base_problem, old, "BASE");
    const std::string why_new = why_no_ratio(new_problem, now, "NEW");
    if (why.empty())
      why = why_new;
    else if (why == "BASE has no round structure" && why_new == "NEW has no round structure")
      why = "BASE and NEW have no round structure";  // files from before `rounds`: said once
  }
  if (c.control || !why.empty()) {
    if (!why.empty()) ++why_time[why];
    const std::vector<double> a = time_units(old, o.blocks), b = time_units(now, o.blocks);
    c.units_base = a.size();
    c.units_new = b.size();
    c.result = judge_units(a, b, old.samples_ms.size(), now.samples_ms.size(), o);
    return;
  }
  const CandidateRecord& base_line = *baseline_of(base_problem);
  const CandidateRecord& new_line = *baseline_of(new_problem);
  const std::vector<double> a = round_ratios(old, base_line), b = round_ratios(now, new_line);
  c.basis = Basis::ratio;
  c.units_base = a.size();
  c.units_new = b.size();
  c.base_x = median_of(base_line.samples_ms) / c.base_median_ms;
  c.new_x = median_of(new_line.samples_ms) / c.new_median_ms;
  c.result = judge_units(a, b, std::min(old.samples_ms.size(), base_line.samples_ms.size()),
                         std::min(now.samples_ms.size(), new_line.samples_ms.size()), o);
}

// A note per control whose estimate moved beyond the threshold: the runs' machine states differ,
// which ratio rows cancel and time rows carry.
std::vector<std::string> control_notes(const std::vector<Comparison>& rows, double threshold) {
  std::vector<std::string> notes;
  for (const Comparison& control : rows) {
    if (!control.control || control.result.verdict == Verdict::failed ||
        !(std::abs(control.result.change.estimate) > threshold))
      continue;
    bool timed = false;  // a subject of this problem judged on absolute times
    for (const Comparison& c : rows)
      timed |= !c.control && c.basis == Basis::time && describe(c.problem) == describe(control.problem);
    notes.push_back(fmt::format("{}: {} moved {:+.1f}% between runs: the machine's state differs; {}",
                                describe(control.problem), provider_name(control.source),
                                100 * control.result.change.estimate,
                                timed ? "its kernels judged on absolute times carry that" : "ratios cancel it"));
  }
  return notes;
}

}  // namespace

std::string Comparison::kernel() const {
  std::string k = source + " " + label;
  if (!new_label.empty()) k += " -> " + new_label;
  return k;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::same: return "same";
    case Verdict::faster: return "faster";
    case Verdict::slower: return "slower";
    case Verdict::ambiguous: return "ambiguous";
    case Verdict::failed: return "failed";
  }
  return "unknown";
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw Error(fmt::format("normal quantile of {} (must be in (0, 1))", p));
  // Bisection on the survival function: 200 halvings of [-40, 40] reach double precision, and
  // this runs once per comparison.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (1 - normal_sf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

RankTest mann_whitney_u(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.empty() || y.empty()) throw Error("rank test of an empty sample");
  const double n1 = static_cast<double>(x.size()), n2 = static_cast<double>(y.size());
  std::vector<std::pair<double, bool>> all;  // value, from x
  all.reserve(x.size() + y.size());
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  // Average ranks over ties; sum of t^3 - t over tie groups for the variance.
  double rank_sum_x = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double rank = 0.5 * (static_cast<double>(i + 1) + static_cast<double>(j));  // 1-based average
    for (size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_x += rank;
    tie_term += t * t * t - t;
    i = j;
  }

  RankTest r;
  r.u = rank_sum_x - n1 * (n1 + 1) / 2;
  const double n = n1 + n2;
  const double mu = n1 * n2 / 2;
  const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))));
  if (!(sigma > 0)) return r;  // every value tied: no evidence of any difference (z 0, p 1)
  const double u_big = std::max(r.u, n1 * n2 - r.u);
  r.z = (u_big - mu - 0.5) / sigma;
  r.p_value = std::min(1.0, 2 * normal_sf(r.z));
  if (r.u < mu) r.z = -r.z;  // sign: negative when x tends to be smaller
  return r;
}

ChangeEstimate relative_change(const std::vector<double>& base, const std::vector<double>& next, double confidence) {
  if (base.empty() || next.empty()) throw Error("relative change of an empty sample");
  auto logs = [](const std::vector<double>& v) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double s : v) {
      if (!(s > 0) || !std::isfinite(s)) throw Error(fmt::format("timing sample {} is not a positive time", s));
      out.push_back(std::log(s));
    }
    return out;
  };
  const std::vector<double> la = logs(base), lb = logs(next);
  std::vector<double> d;
  d.reserve(la.size() * lb.size());
  for (double a : la)
    for (double b : lb) d.push_back(b - a);
  const size_t n = d.size();

  ChangeEstimate c;
  double median = order_statistic(d, n / 2);
  if (n % 2 == 0)  // the lower middle value is the largest of those before the upper one
    median = 0.5 * (median + *std::max_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n / 2)));
  c.estimate = std::expm1(median);

  const double n1 = static_cast<double>(la.size()), n2 = static_cast<double>(lb.size());
  const double z = normal_quantile(0.5 + confidence / 2);
  const double k = std::floor(n1 * n2 / 2 - z * std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12));
  if (k < 1) {
    c.lo = -kInf;
    c.hi = kInf;
    return c;
  }
  const size_t lower = static_cast<size_t>(k) - 1;  // the k-th smallest, 0-based
  c.lo = std::expm1(order_statistic(d, lower));
  c.hi = std::expm1(order_statistic(d, n - 1 - lower));  // the k-th largest
  return c;
}

std::vector<double> block_medians(const std::vector<double>& samples, size_t blocks) {
  if (blocks == 0 || samples.size() <= blocks) return samples;
  std::vector<double> medians;
  for (size_t b = 0; b < blocks; ++b)
    medians.push_back(median_of({samples.begin() + static_cast<std::ptrdiff_t>(b * samples.size() / blocks),
                                 samples.begin() + static_cast<std::ptrdiff_t>((b + 1) * samples.size() / blocks)}));
  return medians;
}

std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<int>& rounds) {
  std::vector<double> medians;
  size_t begin = 0;
  for (int n : rounds) {
    if (n <= 0 || begin + static_cast<size_t>(n) > samples.size()) break;
    const auto first = samples.begin() + static_cast<std::ptrdiff_t>(begin);
    medians.push_back(median_of({first, first + n}));
    begin += static_cast<size_t>(n);
  }
  if (medians.size() != rounds.size() || begin != samples.size()) {
    size_t total = 0;
    for (int n : rounds) total += static_cast<size_t>(std::max(n, 0));
    throw Error(fmt::format("rounds of {} samples in all do not split its {} samples", total, samples.size()));
  }
  return medians;
}

std::vector<double> round_ratios(const CandidateRecord& kernel, const CandidateRecord& baseline) {
  if (kernel.rounds.size() != baseline.rounds.size())
    throw Error(fmt::format("{} rounds of the kernel against {} of its baseline", kernel.rounds.size(),
                            baseline.rounds.size()));
  const std::vector<double> k = round_medians(kernel.samples_ms, kernel.rounds);
  const std::vector<double> b = round_medians(baseline.samples_ms, baseline.rounds);
  std::vector<double> ratios;
  for (size_t r = 0; r < k.size(); ++r) ratios.push_back(k[r] / b[r]);
  return ratios;
}

SampleVerdict judge_units(const std::vector<double>& base_units, const std::vector<double>& next_units,
                          size_t base_samples, size_t next_samples, const CompareOptions& o) {
  SampleVerdict v;
  v.test = mann_whitney_u(base_units, next_units);
  v.change = relative_change(base_units, next_units, 1 - o.alpha);
  const double t = o.threshold;
  const std::string beyond = fmt::format("{:g}%", 100 * t);
  const std::string band = "±" + beyond;
  if (base_samples < o.min_samples || next_samples < o.min_samples) {
    v.verdict = Verdict::ambiguous;
    v.why = fmt::format("too few samples ({} / {}; {} needed)", base_samples, next_samples, o.min_samples);
    return v;
  }
  const bool significant = v.test.p_value < o.alpha;
  if (v.change.lo >= -t && v.change.hi <= t) {
    v.verdict = Verdict::same;
    v.why = significant ? "a small change, within " + band : "no significant change";
  } else if (significant && v.change.lo > t) {
    v.verdict = Verdict::slower;
    v.why = "slower by more than " + beyond;
  } else if (significant && v.change.hi < -t) {
    v.verdict = Verdict::faster;
    v.why = "faster by more than " + beyond;
  } else {
    v.verdict = Verdict::ambiguous;
    if (!significant && smallest_p(base_units.size(), next_units.size()) >= o.alpha)
      v.why = fmt::format("too few rounds or blocks ({} / {}): p cannot go below {:g}", base_units.size(),
                          next_units.size(), o.alpha);
    else
      v.why = significant ? "changed, but the interval straddles " + band
                          : "no significant change, but too noisy to rule out one beyond " + band;
  }
  return v;
}

SampleVerdict judge(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& o) {
  return judge_units(block_medians(base, o.blocks), block_medians(next, o.blocks), base.size(), next.size(), o);
}

size_t CompareReport::count(Verdict v) const {
  return static_cast<size_t>(std::count_if(
      rows.begin(), rows.end(), [v](const Comparison& c) { return !c.control && c.result.verdict == v; }));
}

size_t CompareReport::controls() const {
  return static_cast<size_t>(std::count_if(rows.begin(), rows.end(), [](const Comparison& c) { return c.control; }));
}

std::string CompareReport::baselines_name() const {
  std::string name;
  for (const Comparison& c : rows) {
    if (!c.control) continue;
    if (!name.empty() && name != provider_name(c.source)) return "baseline";
    name = provider_name(c.source);
  }
  return name.empty() ? "baseline" : name;
}

size_t fewest_units(double alpha) {
  if (!(alpha > 0 && alpha < 1)) throw ConfigError("--alpha must be between 0 and 1");
  size_t n = 1;
  while (smallest_p(n, n) >= alpha) ++n;
  return n;
}

CompareReport compare_results(const RunInfo& base_info, const std::vector<ProblemResult>& base,
                              const RunInfo& new_info, const std::vector<ProblemResult>& next,
                              const CompareOptions& options) {
  if (!(options.threshold >= 0)) throw ConfigError("--threshold must be a percentage >= 0");
  if (!(options.alpha > 0 && options.alpha < 1)) throw ConfigError("--alpha must be between 0 and 1");
  // Two files with no problem in common compare nothing: that is a mistake in the command, not a
  // regression (every BASE record would otherwise count as failed).
  const bool shared = std::any_of(base.begin(), base.end(), [&](const ProblemResult& b) {
    return std::any_of(next.begin(), next.end(),
                       [&](const ProblemResult& n) { return describe(n.problem) == describe(b.problem); });
  });
  if (!base.empty() && !next.empty() && !shared)
    throw ConfigError(fmt::format("the two files share no problem, so there is nothing to compare (the first "
                                  "has {}, the second {})",
                                  describe(base.front().problem), describe(next.front().problem)));
  CompareReport report;
  report.options = options;
  report.base_info = base_info;
  report.new_info = new_info;

  const DeviceInfo& a = base_info.device;
  const DeviceInfo& b = new_info.device;
  if (a.name != b.name || a.cc_major != b.cc_major || a.cc_minor != b.cc_minor || a.sm_count != b.sm_count) {
    const std::string what = fmt::format("the files come from different devices: {} (cc {}.{}, {} SMs) and {} (cc "
                                         "{}.{}, {} SMs)",
                                         a.name, a.cc_major, a.cc_minor, a.sm_count, b.name, b.cc_major, b.cc_minor,
                                         b.sm_count);
    if (!options.allow_different_devices) throw ConfigError(what + "; --allow-different-devices to compare anyway");
    report.notes.push_back(what + " (allowed)");
  }
  if (a.driver_version != b.driver_version)
    report.notes.push_back(fmt::format("driver {} in BASE, {} in NEW", a.driver_version, b.driver_version));
  if (base_info.nvrtc_version != new_info.nvrtc_version)
    report.notes.push_back(fmt::format("NVRTC {} in BASE, {} in NEW", base_info.nvrtc_version, new_info.nvrtc_version));

  // NEW's records by key, each key's records in file order (a file may hold one key twice).
  std::map<std::string, std::vector<Located>> in_new;
  std::set<std::string> groups_in_new;  // (problem, source) pairs NEW has any record of
  for (size_t p = 0; p < next.size(); ++p)
    for (const CandidateRecord& rec : next[p].records) {
      in_new[key_of(next[p].problem, rec)].push_back({p, &rec});
      groups_in_new.insert(group_of(next[p].problem, rec));
    }
  std::map<std::string, size_t> taken;

  std::vector<std::pair<size_t, Comparison>> rows;  // BASE position, row
  std::map<std::string, size_t> why_time;           // why subjects were judged on absolute times
  // `at` is the BASE position of `old`; `now` is null when NEW has nothing of its problem and source.
  auto add = [&](size_t at, const ProblemResult& base_problem, const CandidateRecord& old, const Located& now) {
    const bool measured = old.disposition == Disposition::passed && !old.samples_ms.empty();
    if (!now.rec) {
      if (!measured || old.pruned) {
        ++report.only_in_base;  // nothing NEW was expected to measure again
        return;
      }
    } else if (!measured) {
      ++report.not_passed;  // nothing measured in BASE to hold NEW to
      return;
    } else if (old.pruned ||
               (now.rec->disposition == Disposition::passed && (now.rec->pruned || now.rec->samples_ms.empty()))) {
      ++report.pruned;
      return;
    }
    const Problem& problem = base_problem.problem;
    Comparison c;
    c.problem = problem;
    c.source = old.source;
    c.control = old.is_baseline();
    c.label = label_of(old);
    if (now.rec && key_of(problem, old) != key_of(problem, *now.rec)) c.new_label = label_of(*now.rec);
    c.n_base = old.samples_ms.size();
    c.base_median_ms = median_of(old.samples_ms);
    if (!now.rec) {
      c.result.verdict = Verdict::failed;
      c.result.why = "missing from NEW";
    } else if (now.rec->disposition != Disposition::passed) {
      c.result.verdict = Verdict::failed;
      c.result.why = fmt::format("passed in BASE, {} in NEW: {}", to_string(now.rec->disposition), now.rec->reason);
    } else {
      try {
        judge_row(c, base_problem, old, next[now.problem], *now.rec, options, why_time);
      } catch (const Error& e) {  // a sample that is no time, rounds that do not add up: a broken file
        throw ConfigError(fmt::format("{} {}: {}", describe(problem), c.kernel(), e.what()));
      }
    }
    rows.emplace_back(at, std::move(c));
  };

  // Unmatched records per (problem, source), for the one-to-one pairing after a re-tuning.
  std::map<std::string, std::vector<std::pair<size_t, Located>>> left_base;
  size_t position = 0;
  for (size_t p = 0; p < base.size(); ++p) {
    for (const CandidateRecord& rec : base[p].records) {
      const size_t at = position++;
      const std::string key = key_of(base[p].problem, rec);
      auto it = in_new.find(key);
      size_t& used = taken[key];
      if (it != in_new.end() && used < it->second.size()) {
        add(at, base[p], rec, it->second[used++]);
      } else {
        left_base[group_of(base[p].problem, rec)].push_back({at, {p, &rec}});
      }
    }
  }
  std::map<std::string, std::vector<Located>> left_new;
  for (const auto& [key, located] : in_new)
    for (size_t i = taken[key]; i < located.size(); ++i)
      left_new[group_of(next[located[i].problem].problem, *located[i].rec)].push_back(located[i]);

  for (const auto& [group, olds] : left_base) {
    auto it = left_new.find(group);
    if (olds.size() == 1 && it != left_new.end() && it->second.size() == 1) {
      add(olds[0].first, base[olds[0].second.problem], *olds[0].second.rec, it->second[0]);
      left_new.erase(it);
    } else if (!groups_in_new.count(group)) {
      for (const auto& [at, old] : olds) add(at, base[old.problem], *old.rec, Located{});
    } else {
      report.only_in_base += olds.size();
    }
  }
  for (const auto& [group, nows] : left_new) report.only_in_new += nows.size();

  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [at, row] : rows) report.rows.push_back(std::move(row));
  for (const auto& [why, n] : why_time)
    report.notes.push_back(fmt::format("{}: {} {} judged on absolute times", why, n, n == 1 ? "row" : "rows"));
  for (std::string& note : control_notes(report.rows, options.threshold)) report.notes.push_back(std::move(note));
  return report;
}

}  // namespace ktune
