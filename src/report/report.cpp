// Building the report model; see report.hpp.
#include "report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "util/error.hpp"

namespace ktune {

Report build_report(const RunInfo& run, const std::vector<ProblemResult>& results, const Ceilings& ceilings,
                    const std::string& results_file) {
  if (results.empty()) throw ConfigError(fmt::format("{} has no problems to report", results_file));
  Report report{run, results_file, ceilings, {}};
  for (const ProblemResult& result : results) {
    ReportProblem p;
    p.problem = result.problem;
    p.cost = result.cost;
    p.roofs = roofs_for(ceilings, result.problem.dtype);
    p.intensity = result.cost.min_bytes > 0 ? result.cost.flops / result.cost.min_bytes : 0;
    p.ridge = ridge_point(p.roofs);
    p.bound = p.intensity >= p.ridge ? "compute" : "memory";
    for (const CandidateRecord& rec : result.records) {
      if (!rec.time || !(rec.time->median > 0)) {
        p.untimed[to_string(rec.disposition)]++;
        continue;
      }
      ReportRecord r{rec.role,        rec.source,      rec.config_name, rec.params,       rec.kernel_name,
                     rec.disposition, rec.pruned,      rec.time->median, rec.time->n,
                     rec.ratio_vs_reference, roofline(result.cost, rec.time->median, p.roofs),
                     rec.telemetry_after ? rec.telemetry_after : rec.telemetry_before,
                     rec.throttled(),         rec.clocks_text()};
      if (!rec.is_baseline() && rec.disposition == Disposition::passed) ++p.passed_candidates;
      p.records.push_back(std::move(r));
    }
    // The reference is the problem's first baseline (the one candidates were compared with), not
    // the fastest: a memory-bound family's copy roof is timed beside its library op.
    std::string reference_name;
    for (const ReportRecord& r : p.records)
      if (r.role == Role::baseline) {
        reference_name = r.kernel_name;
        break;
      }
    std::stable_sort(p.records.begin(), p.records.end(),
                     [](const ReportRecord& a, const ReportRecord& b) { return a.median_ms < b.median_ms; });
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      if (r.disposition != Disposition::passed) continue;
      if (r.role == Role::baseline) {
        if (!p.reference && r.kernel_name == reference_name) p.reference = i;
      } else if (!p.winner) {
        p.winner = i;
      }
    }
    report.problems.push_back(std::move(p));
  }
  return report;
}

std::string params_text(const Bindings& params) {
  std::string out;
  for (const auto& [name, value] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string record_config(const ReportRecord& r) {
  return r.role == Role::baseline || r.params.empty() ? r.kernel_name : params_text(r.params);
}

std::string record_note(const ReportProblem& p, size_t i) {
  std::vector<std::string> parts;
  if (p.winner == i) parts.push_back("winner");
  if (p.reference == i) parts.push_back("reference");
  if (p.records[i].pruned) parts.push_back("pruned");
  if (p.records[i].disposition != Disposition::passed) parts.push_back(to_string(p.records[i].disposition));
  std::string note;
  for (const std::string& part : parts) note += (note.empty() ? "" : ", ") + part;
  return note;
}

std::string ceilings_note(const Ceilings& c) {
  if (c.source == "datasheet")
    return fmt::format("Datasheet values ({}), not measured on this device: cuBLAS and real kernels stay well below "
                       "them. Run `ktune ceilings` on the GPU for measured roofs.",
                       c.label);
  return fmt::format("Measured by `ktune ceilings` on {}{}; each roof is the work of one run over its median time.",
                     c.label, c.measured_at.empty() ? "" : " at " + c.measured_at);
}

std::vector<CeilingRow> ceiling_rows(const Ceilings& c) {
  auto how = [&](const std::string& probe) {
    auto it = c.probes.find(probe);
    if (it == c.probes.end()) return c.source;
    return fmt::format("{}, median {:.4f} ms of {}", it->second.what, it->second.time.median, it->second.time.n);
  };
  std::vector<CeilingRow> rows = {
      {"memory (copy, bytes read + written)", fmt::format("{:.0f} GB/s", c.copy_gbps), how("copy")}};
  for (const auto& [dtype, tflops] : c.tflops)
    rows.push_back({dtype + " compute" + (dtype == "fp32" ? " (TF32 tensor cores)" : ""),
                    fmt::format("{:.0f} TFLOPS", tflops), how(dtype)});
  return rows;
}

}  // namespace ktune
