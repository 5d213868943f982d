// The report as CSV: one row per timed record; see writers.hpp. Columns: family, the problem's
// dims (in its family's order), dtype, the family's options (gemm: layout), source, role
// (winner, baseline or empty), config_name, params (NAME=VALUE ...), kernel_name, disposition, pruned, samples,
// median_ms, flops, min_bytes, intensity, ridge, bound, achieved_tflops, achieved_gbps, rate and
// rate_unit (the family's headline figure: achieved_tflops for gemm, achieved_gbps for memory-bound
// families), compute_roof_tflops, memory_roof_gbps, attainable_tflops, pct_compute_roof,
// pct_memory_roof, pct_attainable, ratio_vs_baseline, baseline_source (the provider that ratio is
// against: cublas, cudnn, copy), sm_clock_mhz and power_w (NVML after the samples; empty without
// it), throttled, ceilings (measured or datasheet). Quoted as RFC 4180 asks.
#include <fmt/format.h>

#include <set>

#include "report/writers.hpp"
#include "util/table_text.hpp"

namespace ktune {
namespace {

std::string number(double v) { return fmt::format("{}", v); }

std::string sm_clock(const ReportRecord& r) {
  return r.telemetry && r.telemetry->sm_clock_mhz ? std::to_string(*r.telemetry->sm_clock_mhz) : "";
}

std::string power(const ReportRecord& r) {
  return r.telemetry && r.telemetry->power_w ? number(*r.telemetry->power_w) : "";
}

std::vector<Problem> problems_of(const Report& report) {
  std::vector<Problem> out;
  for (const ReportProblem& p : report.problems) out.push_back(p.problem);
  return out;
}

}  // namespace

std::string report_to_csv(const Report& report) {
  const std::vector<std::string> dims = dim_columns(problems_of(report));
  const std::vector<std::string> options = option_columns(problems_of(report));
  std::vector<std::string> header = {"family"};
  header.insert(header.end(), dims.begin(), dims.end());
  header.push_back("dtype");
  header.insert(header.end(), options.begin(), options.end());
  for (const char* c : {"source", "role", "config_name", "params", "kernel_name", "disposition",
                        "pruned", "samples", "median_ms", "flops", "min_bytes", "intensity", "ridge", "bound",
                        "achieved_tflops", "achieved_gbps", "rate", "rate_unit", "compute_roof_tflops",
                        "memory_roof_gbps", "attainable_tflops", "pct_compute_roof", "pct_memory_roof",
                        "pct_attainable", "ratio_vs_baseline", "baseline_source", "sm_clock_mhz", "power_w",
                        "throttled", "ceilings"})
    header.push_back(c);

  std::string out;
  auto line = [&out](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csv_field(cells[i]);
    out += "\n";
  };
  line(header);
  for (const ReportProblem& p : report.problems) {
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      const RooflinePoint& f = r.roof;
      std::vector<std::string> cells = {p.problem.family};
      for (const std::string& d : dims) {
        auto it = p.problem.dims.find(d);
        cells.push_back(it == p.problem.dims.end() ? "" : std::to_string(it->second));
      }
      const char* role = p.winner == i ? "winner" : p.baseline == i ? "baseline" : "";
      cells.push_back(p.problem.dtype);
      for (const std::string& o : options) cells.push_back(p.problem.option(o));
      for (std::string cell :
           {r.source, std::string(role), r.config_name, params_text(r.params),
            r.kernel_name, std::string(to_string(r.disposition)), std::string(r.pruned ? "true" : "false"),
            std::to_string(r.samples), number(r.median_ms), number(f.flops), number(f.bytes), number(f.intensity),
            number(f.ridge), f.bound, number(f.achieved_tflops), number(f.achieved_gbps),
            number(rate_value(p.problem, f.achieved_tflops, f.achieved_gbps)), rate_unit(p.problem),
            number(p.roofs.compute_tflops), number(p.roofs.memory_gbps), number(f.attainable_tflops),
            number(f.pct_compute_roof), number(f.pct_memory_roof), number(f.pct_attainable),
            number(r.ratio_vs_baseline), p.baseline_source, sm_clock(r), power(r),
            std::string(r.throttled ? "true" : "false"), report.ceilings.source})
        cells.push_back(std::move(cell));
      line(cells);
    }
  }
  return out;
}

}  // namespace ktune
