// The report as JSON; see writers.hpp. Numbers that can be non-finite go through double_to_json.
// Each problem says its rate_unit ("TFLOPS" or "GB/s") and baseline_source (the provider every
// ratio_vs_baseline is against); each record its rate in that unit.
#include "report/writers.hpp"
#include "store/record_json.hpp"
#include "store/telemetry_json.hpp"

namespace ktune {

using nlohmann::json;

namespace {

json roofline_json(const RooflinePoint& p) {
  return {{"flops", double_to_json(p.flops)},
          {"min_bytes", double_to_json(p.bytes)},
          {"intensity", double_to_json(p.intensity)},
          {"ridge", double_to_json(p.ridge)},
          {"bound", p.bound},
          {"achieved_tflops", double_to_json(p.achieved_tflops)},
          {"achieved_gbps", double_to_json(p.achieved_gbps)},
          {"attainable_tflops", double_to_json(p.attainable_tflops)},
          {"pct_compute_roof", double_to_json(p.pct_compute_roof)},
          {"pct_memory_roof", double_to_json(p.pct_memory_roof)},
          {"pct_attainable", double_to_json(p.pct_attainable)}};
}

json index_json(const std::optional<size_t>& i) { return i ? json(*i) : json(nullptr); }

}  // namespace

json report_to_json(const Report& report) {
  json problems = json::array();
  for (const ReportProblem& p : report.problems) {
    json records = json::array();
    for (const ReportRecord& r : p.records) {
      records.push_back({{"source", r.source},
                         {"config_name", r.config_name},
                         {"params", r.params},
                         {"kernel_name", r.kernel_name},
                         {"disposition", r.disposition},
                         {"pruned", r.pruned},
                         {"median_ms", double_to_json(r.median_ms)},
                         {"samples", r.samples},
                         {"rate", double_to_json(rate_value(p.problem, r.roof.achieved_tflops, r.roof.achieved_gbps))},
                         {"ratio_vs_baseline", double_to_json(r.ratio_vs_baseline)},
                         {"roofline", roofline_json(r.roof)},
                         {"telemetry", r.telemetry ? json(*r.telemetry) : json(nullptr)},
                         {"throttled", r.throttled}});
    }
    problems.push_back({{"problem", p.problem},
                        {"cost", p.cost},
                        {"roofs",
                         {{"compute_tflops", double_to_json(p.roofs.compute_tflops)},
                          {"memory_gbps", double_to_json(p.roofs.memory_gbps)}}},
                        {"intensity", double_to_json(p.intensity)},
                        {"ridge", double_to_json(p.ridge)},
                        {"bound", p.bound},
                        {"winner", index_json(p.winner)},
                        {"baseline", index_json(p.baseline)},
                        {"baseline_source", p.baseline_source},
                        {"rate_unit", rate_unit(p.problem)},
                        {"passed_candidates", p.passed_candidates},
                        {"untimed", p.untimed},
                        {"records", records}});
  }
  return {{"schema_version", kReportSchemaVersion},
          {"meta",
           {{"results_file", report.results_file},
            {"command", report.run.command},
            {"started_at", report.run.started_at},
            {"ktune_version", report.run.ktune_version}}},
          {"device", report.run.device},
          {"ceilings", report.ceilings},
          {"problems", problems}};
}

}  // namespace ktune
