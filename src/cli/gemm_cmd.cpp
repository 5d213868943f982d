// `ktune gemm --m 4096 [--n --k --dtype --layout]`: tune one GEMM shape with the built-in sweep
// (or --config), answer from the cache when it can.
#include <memory>

#include "cli/commands.hpp"
#include "cli/run_tuning.hpp"

namespace ktune::cli {

void setup_gemm(CLI::App& app, int& exit_code) {
  struct Options {
    ProblemFlags problem;
    CommonFlags common;
    MeasureFlags measure;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("gemm", "find the fastest GEMM kernel for a shape on this GPU");
  add_problem_flags(*cmd, opts->problem, /*m_required=*/true);
  add_common_flags(*cmd, opts->common);
  add_measure_flags(*cmd, opts->measure);
  cmd->callback([opts, &exit_code] {
    const KernelFamily& family = find_family("gemm");
    exit_code = run_tuning(load_configs(opts->common, family), {make_problem("gemm", opts->problem)}, opts->common,
                           opts->measure, "gemm");
  });
}

}  // namespace ktune::cli
