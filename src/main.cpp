// ktune: autotune and benchmark CUDA kernels. main builds the command list and is the only place
// an error becomes an exit code: 0 ok, 1 a check failed, 2 bad input, 3 no GPU, 4 internal error.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "families/family.hpp"
#include "util/error.hpp"
#include "util/stop_signals.hpp"

namespace {

// Folders of family declarations (*.family.json) come from KTUNE_FAMILY_PATH (DIR:DIR...) and
// from --family-path DIR, anywhere on the command line. They are read before the commands are
// built, so each declared family has its subcommand; the flag is taken out of argv here.
std::vector<char*> declare_family_path(int argc, char** argv) {
  std::vector<std::string> folders;
  if (const char* env = std::getenv("KTUNE_FAMILY_PATH"))
    for (std::string rest = env; !rest.empty();) {
      const size_t colon = rest.find(':');
      if (colon != 0) folders.push_back(rest.substr(0, colon));
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
  std::vector<char*> kept = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--family-path") {
      if (i + 1 >= argc) throw ktune::ConfigError("--family-path needs a folder");
      folders.emplace_back(argv[++i]);
    } else if (a.starts_with("--family-path=")) {
      folders.push_back(a.substr(14));
    } else {
      kept.push_back(argv[i]);
    }
  }
  for (const std::string& f : folders) ktune::declare_families_in(f);
  return kept;
}

}  // namespace

int main(int argc, char** argv) {
  // Whole lines out as they are printed, also into a file or a pipe: a run stopped by a time
  // limit (timeout, a CI step, a batch scheduler) keeps every line it printed, where block
  // buffering lost the last 4 KB of a bench log (results/h200/norm-staged-params-s46, call 1).
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  ktune::take_stop_signals();
  ktune::cli::set_argv(argc, argv);
  std::vector<char*> args;
  try {
    args = declare_family_path(argc, argv);
  } catch (const ktune::ConfigError& e) {
    fmt::print(stderr, "ktune: {}\n", e.what());
    return 2;
  }
  CLI::App app{"ktune: autotune and benchmark CUDA kernels (NVRTC-compiled, verified against a reference, timed against the NVIDIA library that has the op)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", KTUNE_VERSION);
  std::string family_path_help;  // read above; declared here so that --help lists it
  app.add_option("--family-path", family_path_help,
                 "a folder of family declarations (*.family.json), each family a command of its own; any number, "
                 "anywhere on the line, or KTUNE_FAMILY_PATH=DIR:DIR");
  int exit_code = 0;
  ktune::cli::register_commands(app, exit_code);
  try {
    app.parse(static_cast<int>(args.size()), args.data());
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
