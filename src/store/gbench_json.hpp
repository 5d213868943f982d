// Bench results as Google Benchmark JSON (what `--benchmark_format=json` writes, schema version
// 1), so Google Benchmark's tools/compare.py and github-action-benchmark (tool: googlecpp) read
// ktune's numbers as they read any C++ benchmark:
//
//   {"context": {"date", "host_name", "executable", "num_cpus", "load_avg", "caches": [],
//                "library_build_type", "json_schema_version": 1,
//                "ktune_version", "gpu", "gpu_cc", "gpu_sm_count", "driver_version",
//                "nvrtc_version", "command"},
//    "benchmarks": [{"name": "gemm_fp16_rr/M:4096/N:4096/K:4096/ktune", "family_index",
//                    "per_family_instance_index", "run_name", "run_type": "iteration",
//                    "repetitions": 1, "repetition_index": 0, "threads": 1,
//                    "iterations": <samples>, "real_time", "cpu_time", "time_unit": "us",
//                    "TFLOPS", "GB/s", "label": <configuration>}, ...]}
//
// One benchmark per problem and source ("ktune", "cublas"): the fastest passed record of that
// source, so a tuning file gives its winner and a bench file its one measurement. family_index
// is the problem's index, per_family_instance_index the source's (ktune 0, cublas 1), which is
// how compare.py orders them. real_time is the MEDIAN of the GPU samples (Google Benchmark would
// report a mean; one sample slowed by a context switch should not move a CI chart) and cpu_time
// repeats it: ktune times the GPU with events, there is no CPU time to report. A source whose
// records all failed gives an entry with "error_occurred": true and its reason, as Google
// Benchmark writes a benchmark that called SkipWithError.
//
// The two names differ only in their last part, so compare.py can set ktune against cuBLAS:
//   compare.py filters run.json ktune cublas
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "store/results.hpp"

namespace ktune {

// What the context block says about the host; gbench_host_now() reads it from this machine. The
// "executable" is the run's argv[0].
struct GbenchHost {
  std::string date;  // local time, "2026-11-21T21:38:28+01:00" as Google Benchmark writes it
  std::string host_name;
  int num_cpus = 0;
  std::vector<double> load_avg;  // 1, 5 and 15 minutes
};
GbenchHost gbench_host_now();

// "gemm_fp16_rr/M:4096/N:4096/K:4096/ktune": family, dtype and option values, then the dimensions
// in `dim_order` (the family's: families/family.hpp, dim_columns), then any others by name.
std::string gbench_name(const Problem& problem, const std::string& source,
                        const std::vector<std::string>& dim_order = {});

// Keys in Google Benchmark's order (context first), hence ordered_json.
nlohmann::ordered_json gbench_json(const RunInfo& info, const std::vector<ProblemResult>& results,
                                   const GbenchHost& host, const ProblemColumns& columns = {});

}  // namespace ktune
