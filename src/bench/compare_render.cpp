// The two renderings of a CompareReport: a fixed-width table for the terminal and markdown for a
// CI job summary (see compare.hpp).
#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "bench/compare.hpp"

namespace ktune {
namespace {

std::string percent(double x) {
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  return fmt::format("{:+.2f}%", 100 * x);
}

std::string interval(const ChangeEstimate& c) { return fmt::format("[{}, {}]", percent(c.lo), percent(c.hi)); }

std::string p_text(double p) { return p < 1e-4 ? fmt::format("{:.0e}", p) : fmt::format("{:.4f}", p); }

std::string summary_line(const CompareReport& r) {
  std::string s = fmt::format("{} slower, {} failed, {} faster, {} same, {} ambiguous", r.count(Verdict::slower),
                              r.count(Verdict::failed), r.count(Verdict::faster), r.count(Verdict::same),
                              r.count(Verdict::ambiguous));
  if (r.pruned) s += fmt::format("; {} pruned (too few samples to compare)", r.pruned);
  if (r.not_passed) s += fmt::format("; {} never passed in BASE", r.not_passed);
  if (r.only_in_base) s += fmt::format("; {} only in BASE", r.only_in_base);
  if (r.only_in_new) s += fmt::format("; {} only in NEW", r.only_in_new);
  return s;
}

std::string md_cell(std::string text) {
  std::string out;
  for (char ch : text) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

std::string md_rows(const CompareReport& r, bool same) {
  std::string md =
      "| verdict | problem | kernel | BASE ms | NEW ms | change | interval | p | samples | why |\n"
      "|---|---|---|---:|---:|---:|---|---:|---|---|\n";
  for (const Comparison& c : r.rows) {
    if ((c.result.verdict == Verdict::same) != same) continue;
    const bool bad = c.result.verdict == Verdict::slower || c.result.verdict == Verdict::failed;
    const std::string verdict = bad ? fmt::format("**{}**", to_string(c.result.verdict)) : to_string(c.result.verdict);
    if (c.result.verdict == Verdict::failed) {
      md += fmt::format("| {} | {} | {} | {:.4f} | — | — | — | — | {} / 0 | {} |\n", verdict, c.problem.describe(),
                        md_cell(c.kernel()), c.base_median_ms, c.n_base, md_cell(c.result.why));
      continue;
    }
    md += fmt::format("| {} | {} | {} | {:.4f} | {:.4f} | {} | {} | {} | {} / {} | {} |\n", verdict,
                      c.problem.describe(), md_cell(c.kernel()), c.base_median_ms, c.new_median_ms,
                      percent(c.result.change.estimate), interval(c.result.change), p_text(c.result.test.p_value),
                      c.n_base, c.n_new, c.result.why);
  }
  return md;
}

}  // namespace

std::string compare_table(const CompareReport& r) {
  std::string out = fmt::format("{:<10} {:>8} {:>20} {:>7} {:>9} {:>9} {:>9}  {}\n", "verdict", "change", "interval",
                                "p", "BASE ms", "NEW ms", "samples", "problem, kernel");
  for (const Comparison& c : r.rows) {
    const bool failed = c.result.verdict == Verdict::failed;
    out += fmt::format("{:<10} {:>8} {:>20} {:>7} {:>9.4f} {:>9} {:>9}  {}  {}\n", to_string(c.result.verdict),
                       failed ? "-" : percent(c.result.change.estimate), failed ? "-" : interval(c.result.change),
                       failed ? "-" : p_text(c.result.test.p_value), c.base_median_ms,
                       failed ? "-" : fmt::format("{:.4f}", c.new_median_ms), fmt::format("{}/{}", c.n_base, c.n_new),
                       c.problem.describe(), c.kernel());
    if (c.result.verdict != Verdict::same) out += fmt::format("{:<10} {}\n", "", c.result.why);
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += fmt::format("{}\nthreshold ±{:g}%, {:g}% intervals; {}\n", summary_line(r), 100 * r.options.threshold,
                     100 * (1 - r.options.alpha),
                     r.regression() ? "REGRESSION" : "no regression");
  return out;
}

std::string compare_markdown(const CompareReport& r) {
  std::string md = fmt::format("## ktune compare: {}\n\n{}. Threshold ±{:g}%, {:g}% intervals.\n\n",
                               r.regression() ? "**regression**" : "no regression", summary_line(r),
                               100 * r.options.threshold, 100 * (1 - r.options.alpha));
  for (const auto& [which, name, info] :
       {std::tuple{"BASE", &r.base_name, &r.base_info}, std::tuple{"NEW", &r.new_name, &r.new_info}})
    md += fmt::format("- {}: `{}`: {}, started {}, `{}`\n", which, *name, info->device.name, info->started_at,
                      info->command);
  for (const std::string& note : r.notes) md += "- note: " + note + "\n";
  md += "\n";

  const size_t same = r.count(Verdict::same);
  if (same < r.rows.size()) md += md_rows(r, false) + "\n";
  if (same > 0) md += fmt::format("<details><summary>{} same</summary>\n\n{}\n</details>\n\n", same, md_rows(r, true));
  md += "Change: Hodges-Lehmann estimate of NEW/BASE - 1 from the raw samples (+ is slower), with its "
        "distribution-free interval; p: two-sided Mann-Whitney U. Slower needs p below alpha and the whole "
        "interval beyond the threshold.\n";
  return md;
}

}  // namespace ktune
