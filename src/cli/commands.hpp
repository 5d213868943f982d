// Every subcommand, registered in one greppable list (commands.cpp). Each setup_* adds its
// options to `app` and sets `exit_code` when it runs.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace ktune::cli {

void setup_family_commands(CLI::App& app, int& exit_code);  // ktune gemm, ... (one per family)
void setup_sweep(CLI::App& app, int& exit_code);
void setup_verify(CLI::App& app, int& exit_code);
void setup_compile(CLI::App& app, int& exit_code);
void setup_cache(CLI::App& app, int& exit_code);
void setup_ceilings(CLI::App& app, int& exit_code);
void setup_report(CLI::App& app, int& exit_code);
void setup_bench(CLI::App& app, int& exit_code);
void setup_compare(CLI::App& app, int& exit_code);
void setup_merge(CLI::App& app, int& exit_code);  // shards' caches and results into one
void setup_export(CLI::App& app, int& exit_code);  // ktune export and ktune lookup
void setup_quantize(CLI::App& app, int& exit_code);  // a matrix into a block-scaled format
void setup_worker(CLI::App& app, int& exit_code);
void setup_families(CLI::App& app, int& exit_code);
std::string families_footer();  // for the top-level help: each family and its built-in configs

inline void register_commands(CLI::App& app, int& exit_code) {
  setup_families(app, exit_code);
  setup_family_commands(app, exit_code);
  setup_sweep(app, exit_code);
  setup_verify(app, exit_code);
  setup_compile(app, exit_code);
  setup_cache(app, exit_code);
  setup_ceilings(app, exit_code);
  setup_report(app, exit_code);
  setup_bench(app, exit_code);
  setup_compare(app, exit_code);
  setup_merge(app, exit_code);
  setup_export(app, exit_code);
  setup_quantize(app, exit_code);
  setup_worker(app, exit_code);
  app.footer(families_footer());  // set last: subcommands made before it do not inherit it
}

}  // namespace ktune::cli
