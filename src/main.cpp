// ktune: autotune and benchmark CUDA kernels. main builds the command list and is the only place
// an error becomes an exit code: 0 ok, 1 a check failed, 2 bad input, 3 no GPU, 4 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  ktune::cli::set_argv(argc, argv);
  CLI::App app{"ktune: autotune and benchmark CUDA kernels (NVRTC-compiled, verified against a reference, timed against the NVIDIA library that has the op)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", KTUNE_VERSION);
  int exit_code = 0;
  ktune::cli::register_commands(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const ktune::NoGpuError& e) {
    fmt::print(stderr, "ktune: {}\n  (offline work needs no GPU: `ktune compile --arch sm_90a`)\n", e.what());
    return 3;
  } catch (const ktune::ConfigError& e) {
    fmt::print(stderr, "ktune: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "ktune: error: {}\n", e.what());
    return 4;
  }
  return exit_code;
}
