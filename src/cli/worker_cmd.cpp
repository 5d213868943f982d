// `ktune __worker`: the isolated GPU process the sweep talks to (tune/worker.hpp). Hidden.
#include <memory>

#include "cli/commands.hpp"
#include "tune/worker.hpp"

namespace ktune::cli {

void setup_worker(CLI::App& app, int& exit_code) {
  auto cache_dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("__worker", "");
  cmd->group("");  // not listed in --help
  cmd->add_option("--cache-dir", *cache_dir)->required();
  cmd->callback([cache_dir, &exit_code] { exit_code = run_worker(*cache_dir); });
}

}  // namespace ktune::cli
