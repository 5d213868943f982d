// The report as one self-contained HTML page: inline CSS, the SVG charts (report/charts.hpp: the
// roofline, then a perf chart per rate unit) and the tables, no scripts and nothing fetched, so it
// opens from a CI artifact or an e-mail the same way. Datasheet ceilings are flagged in a box above
// the charts.
#include <fmt/format.h>

#include <filesystem>

#include "families/family.hpp"
#include "report/charts.hpp"
#include "report/svg.hpp"
#include "report/writers.hpp"

namespace ktune {
namespace {

using svg::escape;

constexpr size_t kTopCandidates = 10;

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #111; max-width: 1100px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; }
h3 { font-size: 15px; margin-top: 22px; }
.meta { color: #555; font-size: 13px; }
code { font-family: ui-monospace, monospace; font-size: 12px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #d0d0d0; padding: 3px 8px; text-align: right; }
th { background: #f3f3f3; }
td.text, th.text { text-align: left; }
tr.winner td { background: #eef6ee; font-weight: 600; }
tr.baseline td { background: #f1f1f1; }
.note { font-size: 13px; }
.datasheet { background: #fff3cd; border: 1px solid #d9a400; padding: 8px 12px; }
figure { margin: 16px 0; }
figcaption { font-size: 13px; color: #444; max-width: 900px; }
)";

std::string pct(double v) { return fmt::format("{:.1f}%", v); }

std::string td(const std::string& text, bool is_text = false) {
  return fmt::format("<td{}>{}</td>", is_text ? " class=\"text\"" : "", escape(text));
}

// One row per problem. Headers name the rate unit and the baseline's provider when every problem
// shares them (a GEMM report: "ktune best TFLOPS", "cuBLAS TFLOPS", "ktune / cuBLAS"). Otherwise a
// "baseline" column names each problem's provider (a memory-bound bench: cuDNN for softmax, the
// copy roof for add) and, when units differ too, rate cells carry their unit ("3012 GB/s").
std::string summary_table(const Report& report) {
  const std::string unit = common_rate_unit(report), ref = common_baseline_name(report);
  const std::string ref_header = ref.empty() ? "baseline" : ref, unit_suffix = " " + (unit.empty() ? "rate" : unit);
  std::string t = fmt::format(
      "<table class=\"summary\"><tr><th class=\"text\">problem</th><th>intensity (FLOP/B)</th><th>ridge</th>"
      "<th class=\"text\">bound</th><th>ktune best{1}</th><th>% of roof</th>{2}<th>{0}{1}</th>"
      "<th>% of roof</th><th>ktune / {0}</th></tr>\n",
      escape(ref_header), escape(unit_suffix), ref.empty() ? "<th class=\"text\">baseline</th>" : "");
  for (const ReportProblem& p : report.problems) {
    auto figures = [&](const std::optional<size_t>& i) {
      if (!i) return td("—") + td("—");
      const ReportRecord& r = p.records[*i];
      return td(unit.empty() ? record_rate(p, r) : rate_number(p, r)) + td(pct(pct_of_roof(p, r.roof)));
    };
    std::string ratio = "—";
    if (p.winner && p.baseline)
      ratio = fmt::format("{:.3f}x", p.records[*p.baseline].median_ms / p.records[*p.winner].median_ms);
    t += "<tr>" + td(problem_label(report, p), true) + td(fmt::format("{:.1f}", p.intensity)) +
         td(fmt::format("{:.1f}", p.ridge)) + td(p.bound, true) + figures(p.winner) +
         (ref.empty() ? td(p.baseline_source.empty() ? "—" : baseline_name(p), true) : "") +
         figures(p.baseline) + td(ratio) + "</tr>\n";
  }
  return t + "</table>\n";
}

std::string problem_section(const ReportProblem& p, const Ceilings& c) {
  std::string s = fmt::format("<section class=\"problem\"><h3>{}</h3>\n", escape(describe(p.problem)));
  std::string counts = fmt::format("{} passed", p.passed_candidates);
  for (const auto& [disposition, n] : p.untimed) counts += fmt::format(", {} {}", n, disposition);
  s += fmt::format("<p class=\"note\">FLOPs {:.4g} · min bytes {:.4g} · intensity {:.1f} FLOP/B · ridge {:.1f} "
                   "FLOP/B → <b>{}-bound</b> · roofs {:.0f} TFLOPS, {:.0f} GB/s ({}) · candidates: {}</p>\n",
                   p.cost.flops, p.cost.min_bytes, p.intensity, p.ridge, p.bound, p.roofs.compute_tflops,
                   p.roofs.memory_gbps, escape(c.source), escape(counts));
  s += fmt::format("<table class=\"candidates\"><tr><th>#</th><th class=\"text\">source</th>"
                   "<th class=\"text\">config</th><th>median ms</th><th>TFLOPS</th><th>GB/s</th>"
                   "<th>% compute roof</th><th>% memory roof</th><th>vs {}</th><th class=\"text\">GPU</th>"
                   "<th class=\"text\">note</th></tr>\n",
                   escape(baseline_name(p)));
  size_t shown = 0;
  for (size_t i = 0; i < p.records.size(); ++i) {
    const ReportRecord& r = p.records[i];
    const bool is_baseline = p.baseline == i, is_winner = p.winner == i;
    if (!is_baseline && shown >= kTopCandidates) continue;
    if (!is_baseline) ++shown;
    s += fmt::format("<tr{}>", is_winner ? " class=\"winner\"" : is_baseline ? " class=\"baseline\"" : "");
    s += td(is_baseline ? "ref" : std::to_string(shown)) + td(provider_name(r.source), true) +
         td(record_config(r), true) + td(fmt::format("{:.4f}", r.median_ms)) +
         td(fmt::format("{:.1f}", r.roof.achieved_tflops)) + td(fmt::format("{:.0f}", r.roof.achieved_gbps)) +
         td(pct(r.roof.pct_compute_roof)) + td(pct(r.roof.pct_memory_roof)) +
         td(ratio_text(r.ratio_vs_baseline)) + td(r.clocks.empty() ? "—" : r.clocks, true) +
         td(record_note(p, i), true) + "</tr>\n";
  }
  return s + "</table></section>\n";
}

}  // namespace

std::string report_to_html(const Report& report) {
  const DeviceInfo& d = report.run.device;
  const Ceilings& c = report.ceilings;
  const std::string file = std::filesystem::path(report.results_file).filename().string();
  std::string h = fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                              "<title>ktune report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                              escape(file), kStyle);
  h += fmt::format("<h1>ktune report: {}</h1>\n"
                   "<p class=\"meta\">{} ({}, {} SMs, driver {}) · <code>{}</code> · {}</p>\n",
                   escape(file), escape(d.name), escape(d.arch()), d.sm_count, d.driver_version,
                   escape(report.run.command), escape(report.run.started_at));

  h += fmt::format("<section id=\"ceilings\"><h2>Ceilings ({})</h2>\n<p class=\"note{}\">{}</p>\n", escape(c.source),
                   c.source == "datasheet" ? " datasheet" : "", escape(ceilings_note(c)));
  h += "<table><tr><th class=\"text\">roof</th><th>value</th><th class=\"text\">measured with</th></tr>\n";
  for (const CeilingRow& row : ceiling_rows(c))
    h += "<tr>" + td(row.roof, true) + td(row.value) + td(row.how, true) + "</tr>\n";
  h += "</table>\n";
  if (const std::string above = above_roof_note(report); !above.empty())
    h += "<p class=\"note above-roof\">" + escape(above) + "</p>\n";
  h += "</section>\n";

  h += "<section id=\"charts\"><h2>Charts</h2>\n";
  if (const std::string ratio = ratio_svg(report); !ratio.empty())
    h += "<figure>\n" + ratio +
         "<figcaption>Each problem's best configuration against its baseline, sorted: the ratio of the baseline's "
         "median time to ktune's, measured in the same run (right of the line: faster). Hover a bar for the "
         "rates.</figcaption>\n</figure>\n";
  h += "<figure>\n" + roofline_svg(report) +
       "<figcaption>Every passed candidate is a point at its problem's arithmetic intensity (FLOPs over the minimum "
       "bytes: each input read once, the output written once) and its median TFLOPS. Hover a point for its "
       "configuration and its rate.</figcaption>\n</figure>\n";
  for (const std::string& unit : rate_units(report))
    h += "<figure>\n" + perf_svg(report, unit) +
         fmt::format("<figcaption>{}: the fastest passed configuration of each provider per problem, against the "
                     "problem's size; dashed, the roof that {} is judged against.</figcaption>\n</figure>\n",
                     escape(unit), escape(unit));
  h += "</section>\n";

  h += "<section id=\"problems\"><h2>Problems</h2>\n" + summary_table(report);
  for (const ReportProblem& p : report.problems) h += problem_section(p, c);
  h += "</section>\n</body>\n</html>\n";
  return h;
}

}  // namespace ktune
