// `ktune FAMILY --dim ...`: one subcommand per kernel family (`ktune gemm --m 4096 [--n --k
// --dtype --layout]`), its problem flags made from the family's schema: tune one problem with the
// family's built-in sweeps (or --config), answer from the cache when it can. A family added to
// the registry gets its subcommand here without a line of its own.
#include <memory>

#include "cli/commands.hpp"
#include "cli/run_tuning.hpp"

namespace ktune::cli {

void setup_family_commands(CLI::App& app, int& exit_code) {
  for (const KernelFamily* family : all_families()) {
    struct Options {
      ProblemFlags problem;
      CommonFlags common;
      MeasureFlags measure;
    };
    auto opts = std::make_shared<Options>();
    CLI::App* cmd = app.add_subcommand(std::string(family->name()),
                                       "find the fastest kernel for one problem on this GPU: " +
                                           std::string(family->summary()));
    add_problem_flags(*cmd, opts->problem, *family, /*required=*/true);
    add_common_flags(*cmd, opts->common);
    add_measure_flags(*cmd, opts->measure);
    cmd->callback([opts, family, &exit_code] {
      exit_code = run_tuning(load_configs(opts->common, *family), {make_problem(*family, opts->problem)},
                             opts->common, opts->measure, std::string(family->name()));
    });
  }
}

}  // namespace ktune::cli
