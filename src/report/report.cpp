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
    for (const RuledOut& r : result.ruled_out_counts()) p.untimed[to_string(Disposition::invalid)] += static_cast<int>(r.count);
    for (const CandidateRecord& rec : result.records) {
      if (ruled_out_by_constraint(rec)) continue;  // counted above
      if (!rec.time || !(rec.time->median > 0)) {
        p.untimed[to_string(rec.disposition)]++;
        continue;
      }
      ReportRecord r{rec.role,        rec.source,      rec.config_name, rec.params,       rec.kernel_name,
                     rec.disposition, rec.pruned,      rec.time->median, rec.time->n,
                     rec.ratio_vs_baseline, roofline(result.cost, rec.time->median, p.roofs),
                     rec.telemetry_after ? rec.telemetry_after : rec.telemetry_before,
                     rec.throttled(),         rec.clocks_text()};
      if (!rec.is_baseline() && rec.disposition == Disposition::passed) ++p.passed_candidates;
      p.records.push_back(std::move(r));
    }
    // The baseline is the problem's first baseline (the one candidates were compared with, so
    // every ratio_vs_baseline is against it), not the fastest: a memory-bound family's copy roof
    // is timed beside its library op. First in the file, timed or not: when it failed, the
    // problem has no baseline rather than another one standing in for it.
    std::string reference_kernel;
    for (const CandidateRecord& rec : result.records)
      if (rec.is_baseline()) {
        reference_kernel = rec.kernel_name;
        p.baseline_source = rec.source;
        break;
      }
    std::stable_sort(p.records.begin(), p.records.end(),
                     [](const ReportRecord& a, const ReportRecord& b) { return a.median_ms < b.median_ms; });
    for (size_t i = 0; i < p.records.size(); ++i) {
      const ReportRecord& r = p.records[i];
      if (r.disposition != Disposition::passed) continue;
      if (r.role == Role::baseline) {
        if (!p.baseline && r.kernel_name == reference_kernel) p.baseline = i;
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
  if (p.baseline == i) parts.push_back("baseline");
  if (p.records[i].pruned) parts.push_back("pruned");
  if (p.records[i].disposition != Disposition::passed) parts.push_back(to_string(p.records[i].disposition));
  std::string note;
  for (const std::string& part : parts) note += (note.empty() ? "" : ", ") + part;
  return note;
}

std::string above_roof_note(const Report& report) {
  double most = 0;
  std::string where;
  for (const ReportProblem& p : report.problems)
    for (const ReportRecord& r : p.records) {
      // The copy roof does none of a compute-bound problem's arithmetic: its "TFLOPS" (gemm_nvfp4's
      // prefill, whose copy roof stays beside it) are the problem's FLOPs over a copy's time.
      const bool copy_of_compute = r.source == "copy" && rate_bound(p.problem) == Bound::compute;
      if (r.disposition == Disposition::passed && !copy_of_compute && pct_of_roof(p, r.roof) > most)
        most = pct_of_roof(p, r.roof), where = problem_label(report, p);
    }
  if (most <= 100) return {};
  return fmt::format(
      "Rates above 100% of their roof (up to {:.1f}%, {}): a roof here is a measurement, not a bound. The memory "
      "roof is what the copy engine reaches copying (bytes read + written), and a kernel that mostly reads or "
      "writes, or the same copy at another size, can move bytes faster; the compute roof is cuBLAS's best at "
      "the ceilings' shapes. Both were measured {} ({}), under that day's clocks and power.",
      most, where, report.ceilings.measured_at.empty() ? "at another time" : "at " + report.ceilings.measured_at,
      report.ceilings.source);
}

std::string ceilings_note(const Ceilings& c) {
  if (c.source == "datasheet")
    return fmt::format("Datasheet values ({}), not measured on this device: real kernels, library calls and copies "
                       "included, stay well below them. Run `ktune ceilings` on the GPU for measured roofs.",
                       c.label);
  return fmt::format("Measured by `ktune ceilings` on {}{}; each roof is the work of one run over its median time.",
                     c.label, c.measured_at.empty() ? "" : " at " + c.measured_at);
}

std::string record_rate(const ReportProblem& p, const ReportRecord& r) {
  return rate_text(p.problem, r.roof.achieved_tflops, r.roof.achieved_gbps);
}

std::string rate_number(const ReportProblem& p, const ReportRecord& r) {
  const std::string text = record_rate(p, r), unit = " " + rate_unit(p.problem);
  return text.ends_with(unit) ? text.substr(0, text.size() - unit.size()) : text;
}

double pct_of_roof(const ReportProblem& p, const RooflinePoint& f) {
  return rate_value(p.problem, f.pct_attainable, f.pct_memory_roof);
}

std::string baseline_name(const ReportProblem& p) {
  return p.baseline_source.empty() ? "baseline" : provider_name(p.baseline_source);
}

namespace {
// The one value every problem gives (problems giving "" are skipped), else "".
template <typename F>
std::string common(const Report& report, F value) {
  std::string shared;
  for (const ReportProblem& p : report.problems) {
    const std::string v = value(p);
    if (v.empty()) continue;
    if (!shared.empty() && v != shared) return "";
    shared = v;
  }
  return shared;
}
}  // namespace

std::string common_rate_unit(const Report& report) {
  return common(report, [](const ReportProblem& p) { return rate_unit(p.problem); });
}

std::string common_baseline_name(const Report& report) {
  return common(report, [](const ReportProblem& p) {
    return p.baseline_source.empty() ? std::string() : provider_name(p.baseline_source);
  });
}

std::vector<std::string> rate_units(const Report& report) {
  std::vector<std::string> units;
  for (const ReportProblem& p : report.problems)
    if (std::find(units.begin(), units.end(), rate_unit(p.problem)) == units.end())
      units.push_back(rate_unit(p.problem));
  return units;
}

std::string problem_label(const Report& report, const ReportProblem& p) {
  for (const ReportProblem& other : report.problems)
    if (other.problem.family != p.problem.family) return describe(p.problem);
  return shape_text(p.problem);
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
