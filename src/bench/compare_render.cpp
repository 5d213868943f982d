// The two renderings of a CompareReport: a fixed-width table for the terminal and markdown for a
// CI job summary (see compare.hpp).
#include <fmt/format.h>

#include <cmath>
#include <tuple>

#include "bench/compare.hpp"
#include "families/family.hpp"
#include "util/table_text.hpp"

namespace ktune {
namespace {

std::string percent(double x) {
  if (std::isinf(x)) return x > 0 ? "+inf" : "-inf";
  return fmt::format("{:+.2f}%", 100 * x);
}

std::string interval(const ChangeEstimate& c) { return fmt::format("[{}, {}]", percent(c.lo), percent(c.hi)); }

std::string p_text(double p) { return p < 1e-4 ? fmt::format("{:.0e}", p) : fmt::format("{:.4f}", p); }

const char* basis_text(const Comparison& c) { return c.basis == Basis::ratio ? "ratio" : "time"; }

// The verdict column: a control's own verdict never decides anything, so it does not show.
std::string verdict_text(const Comparison& c) {
  if (c.control) return c.result.verdict == Verdict::failed ? "control (failed)" : "control";
  return to_string(c.result.verdict);
}

std::string why_text(const Comparison& c) {
  return c.control ? "control, never a regression: " + c.result.why : c.result.why;
}

std::string summary_line(const CompareReport& r) {
  std::string s = fmt::format("{} slower, {} failed, {} faster, {} same, {} ambiguous", r.count(Verdict::slower),
                              r.count(Verdict::failed), r.count(Verdict::faster), r.count(Verdict::same),
                              r.count(Verdict::ambiguous));
  if (r.controls())
    s += fmt::format("; {} {} control{}", r.controls(), r.baselines_name(), r.controls() == 1 ? "" : "s");
  if (r.pruned) s += fmt::format("; {} pruned (too few samples to compare)", r.pruned);
  if (r.not_passed) s += fmt::format("; {} never passed in BASE", r.not_passed);
  if (r.only_in_base) s += fmt::format("; {} only in BASE", r.only_in_base);
  if (r.only_in_new) s += fmt::format("; {} only in NEW", r.only_in_new);
  return s;
}

enum class Section { changed, same, controls };

Section section_of(const Comparison& c) {
  if (c.control) return Section::controls;
  return c.result.verdict == Verdict::same ? Section::same : Section::changed;
}

std::string md_rows(const CompareReport& r, Section section) {
  std::string md = fmt::format(
      "| verdict | problem | kernel | on | BASE ms | NEW ms | BASE x {0} | NEW x {0} | change | interval | p | samples "
      "| why |\n|---|---|---|---|---:|---:|---:|---:|---:|---|---:|---|---|\n",
      r.baselines_name());
  for (const Comparison& c : r.rows) {
    if (section_of(c) != section) continue;
    const bool bad = !c.control && (c.result.verdict == Verdict::slower || c.result.verdict == Verdict::failed);
    const std::string verdict = bad ? fmt::format("**{}**", verdict_text(c)) : verdict_text(c);
    if (c.result.verdict == Verdict::failed) {
      md += fmt::format("| {} | {} | {} | — | {:.4f} | — | — | — | — | — | — | {} / 0 | {} |\n", verdict,
                        describe(c.problem), markdown_cell(c.kernel()), c.base_median_ms, c.n_base, markdown_cell(why_text(c)));
      continue;
    }
    md += fmt::format("| {} | {} | {} | {} | {:.4f} | {:.4f} | {} | {} | {} | {} | {} | {} / {} | {} |\n", verdict,
                      describe(c.problem), markdown_cell(c.kernel()), basis_text(c), c.base_median_ms, c.new_median_ms,
                      ratio_text(c.base_x), ratio_text(c.new_x), percent(c.result.change.estimate), interval(c.result.change),
                      p_text(c.result.test.p_value), c.n_base, c.n_new, markdown_cell(why_text(c)));
  }
  return md;
}

}  // namespace

std::string compare_table(const CompareReport& r) {
  std::string out = fmt::format("{:<10} {:<5} {:>8} {:>20} {:>7} {:>9} {:>9} {:>7} {:>7} {:>9}  {}\n", "verdict", "on",
                                "change", "interval", "p", "BASE ms", "NEW ms", "BASE x", "NEW x", "samples",
                                "problem, kernel");
  for (const Comparison& c : r.rows) {
    const bool failed = c.result.verdict == Verdict::failed;
    out += fmt::format("{:<10} {:<5} {:>8} {:>20} {:>7} {:>9.4f} {:>9} {:>7} {:>7} {:>9}  {}  {}\n", verdict_text(c),
                       failed ? "-" : basis_text(c), failed ? "-" : percent(c.result.change.estimate),
                       failed ? "-" : interval(c.result.change), failed ? "-" : p_text(c.result.test.p_value),
                       c.base_median_ms, failed ? "-" : fmt::format("{:.4f}", c.new_median_ms), ratio_text(c.base_x),
                       ratio_text(c.new_x), fmt::format("{}/{}", c.n_base, c.n_new), describe(c.problem), c.kernel());
    if (c.result.verdict != Verdict::same) out += fmt::format("{:<10} {}\n", "", why_text(c));
  }
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  out += fmt::format("{}\nthreshold ±{:g}%, {:g}% intervals; {}\n", summary_line(r), 100 * r.options.threshold,
                     100 * (1 - r.options.alpha), r.regression() ? "REGRESSION" : "no regression");
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

  const size_t same = r.count(Verdict::same), controls = r.controls();
  if (same + controls < r.rows.size()) md += md_rows(r, Section::changed) + "\n";
  if (same > 0)
    md += fmt::format("<details><summary>{} same</summary>\n\n{}\n</details>\n\n", same, md_rows(r, Section::same));
  if (controls > 0)
    md += fmt::format("<details><summary>{} {} control{} (never a regression)</summary>\n\n{}\n</details>\n\n",
                      controls, r.baselines_name(), controls == 1 ? "" : "s", md_rows(r, Section::controls));
  md += fmt::format(
      "On `ratio`: each round's median kernel time over the median {0} time of the same round, BASE's rounds "
      "against NEW's, so drift that moves both cancels; on `time`: absolute round (or block) medians. x {0}: {0} "
      "median / kernel median (> 1 is faster). Change: Hodges-Lehmann estimate of NEW/BASE - 1 (+ is slower), "
      "with its distribution-free interval; p: two-sided Mann-Whitney U. Slower needs p below alpha and the "
      "whole interval beyond the threshold. {0} rows are controls: a change to ktune does not touch them.\n",
      r.baselines_name());
  return md;
}

}  // namespace ktune
