// `ktune FAMILY --dim ...`: one subcommand per kernel family (`ktune gemm --m 4096 [--n --k
// --dtype --layout]`), its problem flags made from the family's schema: tune one problem with the
// family's built-in sweeps (or --config), answer from the cache when it can. A family added to
// the registry gets its subcommand here without a line of its own. --no-tune answers from the
// cache alone: the problem's own entry, or the nearest tuned shape's (store/dispatch_table.hpp),
// saying which shape and how far.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/current_winners.hpp"
#include "cli/run_tuning.hpp"
#include "scale/shard.hpp"
#include "cuda/device_query.hpp"
#include "store/cache.hpp"
#include "store/dispatch_table.hpp"

namespace ktune::cli {
namespace {

// This GPU's name, or "" (any GPU's rows) where there is none: --no-tune needs no GPU.
std::string this_gpu() {
  try {
    return cuda::query_device().name;
  } catch (const Error&) {
    return "";
  }
}

int answer_without_tuning(const KernelFamily& family, const Problem& problem, const CommonFlags& common) {
  BestConfigCache cache(cache_dir(common) / "best_configs.json");
  std::vector<std::string> notes;
  const std::vector<DispatchRow> table = dispatch_table(current_winners(cache.list(), notes));
  for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
  for (const std::string& n : notes) fmt::print(stderr, "note: {}\n", n);
  // This GPU's rows first; where it has none, any GPU's (the answer names the GPU).
  const std::string gpu = this_gpu();
  std::optional<NearestRow> found =
      nearest_row(table, std::string(family.name()), problem.dtype, problem.options, problem.dims, gpu);
  if (!found && !gpu.empty())
    found = nearest_row(table, std::string(family.name()), problem.dtype, problem.options, problem.dims, "");
  if (!found) {
    fmt::print(stderr, "--no-tune: no tuned {} {} shape with these options in {}\n", family.name(), problem.dtype,
               cache.path().string());
    return 1;
  }
  const DispatchRow& r = *found->row;
  const Problem tuned{r.family, r.dims, r.dtype, r.options};
  if (found->distance == 0)
    fmt::print("{}: tuned on {}\n", describe(problem), r.gpu);
  else
    fmt::print("{}: not tuned; the nearest tuned shape is {} (distance {:.3f}: the sum of |log2| of the dimension "
               "ratios), tuned on {}\n",
               describe(problem), describe(tuned), found->distance, r.gpu);
  fmt::print("  {} {}  {}\n  {:.4f} ms for {}\n", r.config, short_params(r.params), r.kernel_name, r.median_ms,
             describe(tuned));
  return 0;
}

}  // namespace

void setup_family_commands(CLI::App& app, int& exit_code) {
  for (const KernelFamily* family : all_families()) {
    struct Options {
      ProblemFlags problem;
      CommonFlags common;
      MeasureFlags measure;
      bool no_tune = false;
    };
    auto opts = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(std::string(family->name()),
                                       "find the fastest kernel for one problem on this GPU: " +
                                           std::string(family->summary()));
    add_problem_flags(*cmd, opts->problem, *family, /*required=*/true);
    add_common_flags(*cmd, opts->common);
    add_measure_flags(*cmd, opts->measure);
    cmd->add_option("--shard", opts->measure.candidate_shard,
                    "I/N: search only the valid candidates whose index is I modulo N (one problem's candidates "
                    "over a job array; give each job its own --cache-dir, then `ktune merge` the caches)");
    cmd->add_flag("--no-tune", opts->no_tune,
                  "answer from the cache only: this shape's winner, or the nearest tuned shape's (no GPU needed)");
    cmd->callback([opts, family, &exit_code] {
      if (opts->no_tune) {
        exit_code = answer_without_tuning(*family, make_problem(*family, opts->problem), opts->common);
        return;
      }
      if (!opts->measure.candidate_shard.empty()) parse_shard(opts->measure.candidate_shard);  // bad input before the GPU
      exit_code = run_tuning(load_configs(opts->common, *family), {make_problem(*family, opts->problem)},
                             opts->common, opts->measure, std::string(family->name()));
    });
  }
}

}  // namespace ktune::cli
