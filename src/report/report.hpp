// What every report format shows, computed once from a results file and the device's ceilings:
// per problem its roofs and roofline figures, every timed record with its own figures (fastest
// first), the winner (the fastest passed candidate) and the baseline (the problem's first
// baseline: cuBLAS for gemm, cuDNN or the copy roof for memory-bound families). Rates are shown in
// each problem's family unit (families/family.hpp: rate_text), so one report may mix TFLOPS and
// GB/s. The writers (report/writers.hpp) only lay this out.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "families/family.hpp"  // shape_text, describe
#include "report/roofline.hpp"
#include "store/ceilings.hpp"
#include "store/results.hpp"

namespace ktune {

struct ReportRecord {
  Role role = Role::candidate;
  std::string source;  // the provider: "ktune", "cublas", ...
  std::string config_name;
  Bindings params;
  std::string kernel_name;
  Disposition disposition = Disposition::not_run;
  bool pruned = false;
  double median_ms = 0;
  size_t samples = 0;
  double ratio_vs_baseline = 0;  // the results file's: baseline median / this median
  RooflinePoint roof;
  // NVML's reading after the samples (clocks, power); a record measured while the GPU held its
  // clocks down is flagged, since its time is slower than the kernel.
  std::optional<cuda::GpuTelemetry> telemetry;
  bool throttled = false;
  std::string clocks;  // "1515 MHz 689 W THROTTLED (sw_power_cap)", empty without NVML
};

struct ReportProblem {
  Problem problem;
  Cost cost;
  Roofs roofs;
  double intensity = 0, ridge = 0;  // flop/byte
  std::string bound;                // "compute" | "memory"
  std::vector<ReportRecord> records;  // every record with a time, fastest first
  std::optional<size_t> winner;       // index into records
  std::optional<size_t> baseline;     // index into records, when the baseline has a passed time
  std::string baseline_source;       // its provider ("cublas", "cudnn", "copy"): what every
                                      // ratio_vs_baseline is against; empty without a baseline
  std::map<std::string, int> untimed;  // disposition -> records without a time (never run, or failed first)
  int passed_candidates = 0;           // passed records that are not baselines
};

struct Report {
  RunInfo run;
  std::string results_file;
  Ceilings ceilings;
  std::vector<ReportProblem> problems;
};

// Throws ktune::ConfigError when there is no problem or the ceilings lack a problem's dtype.
Report build_report(const RunInfo& run, const std::vector<ProblemResult>& results, const Ceilings& ceilings,
                    const std::string& results_file);

// Shared wording of the writers.
std::string params_text(const Bindings& params);       // "BLOCK_K=32 BLOCK_M=128 ..."
std::string record_config(const ReportRecord& r);      // the parameters, or the kernel name of a library call
std::string record_note(const ReportProblem& p, size_t i);  // "winner", "baseline", "pruned", "incorrect", ...
std::string ceilings_note(const Ceilings& ceilings);   // measured where and when, or a datasheet warning
// Why a rate can pass its roof, when one does in the report (the roofs are measurements, taken at
// another time, of a copy and of cuBLAS); empty when none does.
std::string above_roof_note(const Report& report);

// Family-neutral wording. A rate is a record's headline figure in its problem's unit ("698.7
// TFLOPS", "3012 GB/s"); its "% of roof" is of the roof that unit is judged against: the roofline's
// attainable for TFLOPS, the copy roof for GB/s.
std::string record_rate(const ReportProblem& p, const ReportRecord& r);
std::string rate_number(const ReportProblem& p, const ReportRecord& r);  // the rate without its unit: "3012"
double pct_of_roof(const ReportProblem& p, const RooflinePoint& f);
// The provider the problem's ratios are against, as shown: "cuBLAS", "cuDNN", "copy roof"; or
// "baseline" when the problem has none.
std::string baseline_name(const ReportProblem& p);
// What every problem of the report shares, for column headers: the rate unit, the baseline's
// provider name; empty when problems differ (or none has a baseline).
std::string common_rate_unit(const Report& report);
std::string common_baseline_name(const Report& report);
// The units the report's problems are rated in, first appearance first: one perf chart each.
std::vector<std::string> rate_units(const Report& report);
// A problem as tables and legends name it: its shape ("4096x4096x4096 fp16 rr") when the report
// holds one family, else with the family first ("softmax 8192x8192 fp16").
std::string problem_label(const Report& report, const ReportProblem& p);

// One line of the ceilings table: "memory (copy, bytes read + written)", "3003 GB/s", and how it
// was measured ("cudaMemcpyAsync ..., median 0.715 ms of 70") or "datasheet".
struct CeilingRow {
  std::string roof, value, how;
};
std::vector<CeilingRow> ceiling_rows(const Ceilings& ceilings);

}  // namespace ktune
