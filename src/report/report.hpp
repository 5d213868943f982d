// What every report format shows, computed once from a results file and the device's ceilings:
// per problem its roofs and roofline figures, every timed record with its own figures (fastest
// first), the winner (the fastest passed candidate not from cuBLAS) and the reference (cuBLAS).
// The writers (report/writers.hpp) only lay this out.
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
  double ratio_vs_reference = 0;  // the results file's: reference median / this median
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
  std::optional<size_t> reference;    // index into records
  std::map<std::string, int> untimed;  // disposition -> records without a time (never run, or failed first)
  int passed_candidates = 0;           // passed records not from cuBLAS
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
std::string record_note(const ReportProblem& p, size_t i);  // "winner", "reference", "pruned", "incorrect", ...
std::string ceilings_note(const Ceilings& ceilings);   // measured where and when, or a datasheet warning

// One line of the ceilings table: "memory (copy, bytes read + written)", "3003 GB/s", and how it
// was measured ("cudaMemcpyAsync ..., median 0.715 ms of 70") or "datasheet".
struct CeilingRow {
  std::string roof, value, how;
};
std::vector<CeilingRow> ceiling_rows(const Ceilings& ceilings);

}  // namespace ktune
