// What several subcommands share: the problem flags, the tuning/measurement flags, loading the
// config, the run header of result files and the summary table.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "families/family.hpp"
#include "space/sweep_config.hpp"
#include "store/results.hpp"
#include "tune/tuner.hpp"

namespace ktune::cli {

void set_argv(int argc, char** argv);
const std::vector<std::string>& argv();

// A family's problem on the command line, its flags made from the family's schema: --<dim> for
// each dimension (lower case: --m, --rows), --dtype, --<option> for each option.
struct ProblemFlags {
  std::map<std::string, int64_t> dims;  // by the schema's names; 0: not given
  std::string dtype;                    // "": the schema's first dtype
  Options options;                      // "": the schema's default
  bool given() const;                   // any dimension given
};
// `required`: the dimensions that default to no other must be given.
void add_problem_flags(CLI::App& app, ProblemFlags& flags, const KernelFamily& family, bool required);
// The problem the flags describe, defaults filled in (a dimension from the one it defaults to).
Problem make_problem(const KernelFamily& family, const ProblemFlags& flags);

struct CommonFlags {
  std::string config;           // --config FILE ("" = the family's embedded default)
  std::string kernel;           // --kernel FILE
  std::string cache_dir;        // --cache-dir ("" = XDG default)
  int jobs = 0;
  bool no_progress = false;
};
void add_common_flags(CLI::App& app, CommonFlags& flags);

std::filesystem::path cache_dir(const CommonFlags& flags);
// --config's file, or else every default config of the family.
std::vector<SweepConfig> load_configs(const CommonFlags& flags, const KernelFamily& family);
// An embedded config by path ("configs/gemm_mma.json").
SweepConfig embedded_config(std::string_view path, const KernelFamily& family);

struct MeasureFlags {
  bool retune = false;
  std::string out = "results";
  int top = 10;
  double timeout_s = 20;
  double warmup_ms = 10;
  double min_time_ms = 20;
  double max_time_ms = 1000;
  double noise = 0.005;
  int min_samples = 10;
  double prune = 1.15;
  bool allow_spills = false;
  int finalists = 4;
  bool exhaustive = false;
  int max_candidates = 0;  // 0: the search's default
  double budget_s = 0;     // 0: no time limit
  std::string candidate_shard;  // "I/N": one problem's candidates split over a job array (family commands)
  TimingMethod timing;
  std::optional<double> rtol, atol, norm_tol;
};
void add_measure_flags(CLI::App& app, MeasureFlags& flags);
TuneOptions tune_options(const CommonFlags&, const MeasureFlags&);
SessionOptions session_options(const CommonFlags&, const MeasureFlags&);

RunInfo make_run_info(const DeviceInfo& device);
std::string results_stem(const std::string& what);  // "gemm-20261121T201500Z"

// Compact parameter text: "BM=128 BN=256 BK=32 NW=8 NS=3 GM=8 A=1".
std::string short_params(const Bindings& params);
// The top candidates with the baseline, the counts by disposition and, when none passed, why.
void print_tune_result(const TuneResult& result, int top);
// The most common reasons the problem's candidates failed, with their counts.
void print_rejections(const ProblemResult& result);

}  // namespace ktune::cli
