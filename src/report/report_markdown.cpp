// The report as markdown (a CI job summary, a pull request comment); see writers.hpp. Ceilings
// first, then one summary row per problem, then each problem's fastest candidates.
#include <fmt/format.h>

#include <filesystem>

#include "families/family.hpp"
#include "report/writers.hpp"
#include "util/table_text.hpp"

namespace ktune {
namespace {

constexpr size_t kTopCandidates = 10;

std::string pct(double v) { return fmt::format("{:.1f}%", v); }

}  // namespace

std::string report_to_markdown(const Report& report) {
  const DeviceInfo& d = report.run.device;
  const Ceilings& c = report.ceilings;
  const std::string file = std::filesystem::path(report.results_file).filename().string();
  std::string md = fmt::format("# ktune report: {}\n\n", file);
  md += fmt::format("{} ({}, {} SMs, driver {}) · `{}` · {}\n\n", d.name, d.arch(), d.sm_count, d.driver_version,
                    report.run.command, report.run.started_at);

  md += fmt::format("## Ceilings ({})\n\n{}\n\n| roof | value | measured with |\n|---|---|---|\n", c.source,
                    ceilings_note(c));
  for (const CeilingRow& row : ceiling_rows(c))
    md += fmt::format("| {} | {} | {} |\n", row.roof, row.value, markdown_cell(row.how));
  if (const std::string above = above_roof_note(report); !above.empty()) md += "\n" + above + "\n";
  // Headers name the rate unit and the baseline's provider when every problem shares them;
  // otherwise a baseline column names the provider and cells carry their unit (as report_html.cpp).
  const std::string unit = common_rate_unit(report), ref = common_baseline_name(report);
  const std::string ref_header = ref.empty() ? "baseline" : ref, unit_suffix = " " + (unit.empty() ? "rate" : unit);
  md += fmt::format("\n## Problems\n\n| problem | intensity (FLOP/B) | ridge | bound | ktune best{1} | % of roof | "
                    "{2}{0}{1} | % of roof | ktune / {0} |\n|---|---|---|---|---|---|---|---|---|{3}\n",
                    ref_header, unit_suffix, ref.empty() ? "baseline | " : "", ref.empty() ? "---|" : "");
  for (const ReportProblem& p : report.problems) {
    auto figures = [&](const std::optional<size_t>& i) {
      if (!i) return std::string("— | —");
      const ReportRecord& r = p.records[*i];
      return fmt::format("{} | {}", unit.empty() ? record_rate(p, r) : rate_number(p, r), pct(pct_of_roof(p, r.roof)));
    };
    std::string ratio = "—";
    if (p.winner && p.baseline)
      ratio = fmt::format("{:.3f}x", p.records[*p.baseline].median_ms / p.records[*p.winner].median_ms);
    const std::string provider =
        ref.empty() ? (p.baseline_source.empty() ? "— | " : markdown_cell(baseline_name(p)) + " | ") : "";
    md += fmt::format("| {} | {:.1f} | {:.1f} | {} | {} | {}{} | {} |\n", markdown_cell(problem_label(report, p)), p.intensity,
                      p.ridge, p.bound, figures(p.winner), provider, figures(p.baseline), ratio);
  }

  for (const ReportProblem& p : report.problems) {
    md += fmt::format("\n### {}\n\n", markdown_cell(describe(p.problem)));
    md += fmt::format("FLOPs {:.4g} · min bytes {:.4g} · intensity {:.1f} FLOP/B · ridge {:.1f} FLOP/B → "
                      "{}-bound · roofs {:.0f} TFLOPS, {:.0f} GB/s ({})\n\n",
                      p.cost.flops, p.cost.min_bytes, p.intensity, p.ridge, p.bound, p.roofs.compute_tflops,
                      p.roofs.memory_gbps, c.source);
    std::string counts = fmt::format("{} passed", p.passed_candidates);
    for (const auto& [disposition, n] : p.untimed) counts += fmt::format(", {} {}", n, disposition);
    md += fmt::format("Candidates: {}.\n\n", counts);
    md += fmt::format("| # | source | config | median ms | TFLOPS | GB/s | % compute roof | % memory roof | vs {} "
                      "| GPU | note |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
                      markdown_cell(baseline_name(p)));
    size_t shown = 0;
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      const bool is_baseline = p.baseline == i;
      if (!is_baseline && shown >= kTopCandidates) continue;
      if (!is_baseline) ++shown;
      md += fmt::format("| {} | {} | {} | {:.4f} | {:.1f} | {:.0f} | {} | {} | {} | {} | {} |\n",
                        is_baseline ? "ref" : std::to_string(shown), provider_name(r.source), markdown_cell(record_config(r)),
                        r.median_ms, r.roof.achieved_tflops, r.roof.achieved_gbps, pct(r.roof.pct_compute_roof),
                        pct(r.roof.pct_memory_roof), ratio_text(r.ratio_vs_baseline), r.clocks.empty() ? "—" : markdown_cell(r.clocks),
                        record_note(p, i));
    }
  }
  return md;
}

}  // namespace ktune
