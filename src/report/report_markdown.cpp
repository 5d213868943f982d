// The report as markdown (a CI job summary, a pull request comment); see writers.hpp. Ceilings
// first, then one summary row per problem, then each problem's fastest candidates.
#include <fmt/format.h>

#include <filesystem>

#include "families/family.hpp"
#include "report/writers.hpp"

namespace ktune {
namespace {

constexpr size_t kTopCandidates = 10;

// Table cells must not break the table.
std::string cell(std::string s) {
  for (char& c : s)
    if (c == '|' || c == '\n') c = ' ';
  return s;
}

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
    md += fmt::format("| {} | {} | {} |\n", row.roof, row.value, cell(row.how));
  md += "\n## Problems\n\n| problem | intensity (FLOP/B) | ridge | bound | ktune best TFLOPS | % of roof | cuBLAS "
        "TFLOPS | % of roof | ktune / cuBLAS |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const ReportProblem& p : report.problems) {
    auto figures = [&](const std::optional<size_t>& i) {
      if (!i) return std::string("— | —");
      const RooflinePoint& f = p.records[*i].roof;
      return fmt::format("{:.1f} | {}", f.achieved_tflops, pct(f.pct_attainable));
    };
    std::string ratio = "—";
    if (p.winner && p.reference)
      ratio = fmt::format("{:.3f}x", p.records[*p.reference].median_ms / p.records[*p.winner].median_ms);
    md += fmt::format("| {} | {:.1f} | {:.1f} | {} | {} | {} | {} |\n", cell(shape_text(p.problem)), p.intensity,
                      p.ridge, p.bound, figures(p.winner), figures(p.reference), ratio);
  }

  for (const ReportProblem& p : report.problems) {
    md += fmt::format("\n### {}\n\n", cell(describe(p.problem)));
    md += fmt::format("FLOPs {:.4g} · min bytes {:.4g} · intensity {:.1f} FLOP/B · ridge {:.1f} FLOP/B → "
                      "{}-bound · roofs {:.0f} TFLOPS, {:.0f} GB/s ({})\n\n",
                      p.cost.flops, p.cost.min_bytes, p.intensity, p.ridge, p.bound, p.roofs.compute_tflops,
                      p.roofs.memory_gbps, c.source);
    std::string counts = fmt::format("{} passed", p.passed_candidates);
    for (const auto& [disposition, n] : p.untimed) counts += fmt::format(", {} {}", n, disposition);
    md += fmt::format("Candidates: {}.\n\n", counts);
    md += "| # | source | config | median ms | TFLOPS | GB/s | % compute roof | % memory roof | vs cuBLAS | GPU | note "
          "|\n|---|---|---|---|---|---|---|---|---|---|---|\n";
    size_t shown = 0;
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      const bool is_reference = p.reference == i;
      if (!is_reference && shown >= kTopCandidates) continue;
      if (!is_reference) ++shown;
      md += fmt::format("| {} | {} | {} | {:.4f} | {:.1f} | {:.0f} | {} | {} | {:.3f}x | {} | {} |\n",
                        is_reference ? "ref" : std::to_string(shown), provider_name(r.source), cell(record_config(r)),
                        r.median_ms, r.roof.achieved_tflops, r.roof.achieved_gbps, pct(r.roof.pct_compute_roof),
                        pct(r.roof.pct_memory_roof), r.ratio_vs_reference, r.clocks.empty() ? "—" : cell(r.clocks),
                        record_note(p, i));
    }
  }
  return md;
}

}  // namespace ktune
