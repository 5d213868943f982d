// `ktune sweep FILE.json`: a sweep described entirely by a file: kernel, parameters, constraints,
// problems, dtypes and the family's options. Every problem x dtype x option value is tuned in turn.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/run_tuning.hpp"
#include "space/json_document.hpp"
#include "util/fs.hpp"

namespace ktune::cli {

void setup_sweep(CLI::App& app, int& exit_code) {
  struct Options {
    std::string file;
    CommonFlags common;
    MeasureFlags measure;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("sweep", "run the sweep a JSON file describes");
  cmd->add_option("file", opts->file, "sweep config JSON")->required();
  add_common_flags(*cmd, opts->common);
  add_measure_flags(*cmd, opts->measure);
  cmd->callback([opts, &exit_code] {
    if (!std::filesystem::exists(opts->file)) throw ConfigError(fmt::format("{}: no such file", opts->file));
    // The family named in the file picks the names its expressions may use: a family's name, or
    // a declaration's path next to the config. A file without a readable "family" is handed to
    // the gemm loader, which reports exactly what is wrong.
    nlohmann::json peek = nlohmann::json::parse(read_file(opts->file), nullptr, /*allow_exceptions=*/false);
    std::string family_name = "gemm";
    if (peek.is_object() && peek.contains("family") && peek["family"].is_string()) family_name = peek["family"];
    const KernelFamily& family = [&]() -> const KernelFamily& {
      try {
        return family_named_in(family_name, std::filesystem::absolute(opts->file).parent_path());
      } catch (const ConfigError& e) {  // said at the "family" value of the file
        throw ConfigError(fmt::format("{}: {}", JsonDocument(read_file(opts->file), opts->file).where("/family"), e.what()));
      }
    }();
    family_name = family.name();
    CommonFlags common = opts->common;
    common.config = opts->file;
    SweepConfig config = load_configs(common, family).front();
    if (config.problems.empty()) throw ConfigError(opts->file + ": no \"problems\" to sweep");
    ConfigProblems made = config_problems(config, config.problems);
    for (const auto& [problem, why] : made.skipped) fmt::print("{}: skipped ({})\n", describe(problem), why);
    if (made.problems.empty()) throw ConfigError(opts->file + ": none of its problems is one " + family_name + " takes");
    exit_code = run_tuning({config}, made.problems, common, opts->measure, "sweep-" + config.name);
  });
}

}  // namespace ktune::cli
