#include "cli/run_tuning.hpp"

#include <fmt/format.h>

#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "store/cache.hpp"

namespace ktune::cli {

int run_tuning(const std::vector<SweepConfig>& configs, const std::vector<Problem>& problems,
               const CommonFlags& common, const MeasureFlags& measure, const std::string& stem_prefix) {
  std::vector<Sweep> sweeps;
  for (const SweepConfig& config : configs) sweeps.push_back({config, resolve_kernel_source(config, common.kernel)});
  for (const Problem& p : problems) check_problem(p);  // all bad input before any GPU work
  TuneOptions options = tune_options(common, measure);

  Session session(session_options(common, measure));
  const DeviceInfo& device = session.device();
  fmt::print("device: {} ({}, {} SMs, driver {})\n", device.name, device.arch(), device.sm_count,
             device.driver_version);

  NvrtcCompiler compiler(cache_dir(common));
  BestConfigCache cache(cache_dir(common) / "best_configs.json");
  Tuner tuner(session, compiler, cache, std::move(options));
  const RunInfo info = make_run_info(device);
  const std::string stem = results_stem(stem_prefix);

  std::vector<ProblemResult> results;
  int failures = 0;
  for (const Problem& problem : problems) {
    TuneResult r = tuner.tune(sweeps, problem);
    if (r.cached) {
      const CacheEntry& e = *r.cached;
      fmt::print("\n{}\ncached best (tuned {}): {} {}  {:.4f} ms  {}  {} baseline\n"
                 "  (answered from {}; --retune to tune again)\n",
                 describe(problem), e.created_at, e.winner_config, short_params(e.params), e.median_ms,
                 rate_text(problem, e.tflops, e.gbps), ratio_text(e.ratio_vs_baseline), cache.path().string());
      continue;
    }
    print_tune_result(r, measure.top);
    if (!r.cache_warning.empty()) fmt::print(stderr, "warning: the winner was not cached: {}\n", r.cache_warning);
    if (!r.best) {
      ++failures;
      fmt::print("no candidate passed for {}\n", describe(problem));
    }
    results.push_back(std::move(r.result));
    auto [json_path, csv_path] = write_results(measure.out, stem, info, results, problem_columns(results));
    if (&problem == &problems.back()) fmt::print("\nresults: {}\n         {}\n", json_path.string(), csv_path.string());
  }
  for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
  if (session.worker_restarts() > 0)
    fmt::print("the worker was restarted {} time(s) after crashed or hung candidates\n", session.worker_restarts());
  return failures ? 1 : 0;
}

}  // namespace ktune::cli
