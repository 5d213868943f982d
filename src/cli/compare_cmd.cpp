// `ktune compare BASE.json NEW.json`: the CI gate. Matches the records of two results files and
// judges each kernel by its per-round ratio to cuBLAS, or on absolute times where the files have
// no rounds (bench/compare.hpp); prints a table, writes a markdown summary with --markdown (a CI
// job's $GITHUB_STEP_SUMMARY), and exits 1 when a kernel clearly got slower than --threshold,
// stopped passing or is missing from NEW, 0 otherwise (cuBLAS rows are controls and never
// count), 2 for bad input such as files from different devices.
#include <fmt/format.h>

#include <fstream>
#include <memory>

#include "bench/compare.hpp"
#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "util/error.hpp"

namespace ktune::cli {

void setup_compare(CLI::App& app, int& exit_code) {
  struct Options {
    std::string base, next, markdown;
    double threshold_percent = 3;
    double alpha = 0.05;
    size_t min_samples = 10;
    size_t blocks = 5;
    bool allow_different_devices = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "compare two results files kernel by kernel, by per-round ratios to the library baseline; exit 1 on a regression");
  cmd->add_option("base", opts->base, "the baseline results JSON (or .json.gz)")->required();
  cmd->add_option("new", opts->next, "the results JSON to judge (or .json.gz)")->required();
  cmd->add_option("--threshold", opts->threshold_percent, "percent change that counts as a regression")
      ->capture_default_str();
  cmd->add_option("--alpha", opts->alpha, "significance level of the rank test; intervals are at 1 - alpha")
      ->capture_default_str();
  cmd->add_option("--min-samples", opts->min_samples, "fewer samples on either side: ambiguous")
      ->check(at_least(1))
      ->capture_default_str();
  CLI::Option* blocks = cmd->add_option("--blocks", opts->blocks,
                  "records without rounds (sweep files, older bench files): test the medians of this many equal "
                  "blocks of samples (5: the rounds bench took by default; 0: every sample a unit)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_flag("--allow-different-devices", opts->allow_different_devices,
                "compare files from different GPUs (else an error)");
  cmd->add_option("--markdown", opts->markdown, "also write the summary as markdown to this file (appended)");
  cmd->callback([opts, blocks, &exit_code] {
    // Blocks too few for the rank test to reach --alpha would call every record judged on them
    // ambiguous, and the gate would pass whatever the times (checked when given: bench's files
    // carry rounds and never use the default).
    if (blocks->count() > 0 && opts->blocks > 0 && opts->blocks < fewest_units(opts->alpha))
      throw ConfigError(fmt::format("--blocks {}: the rank test cannot reach p < {:g} with so few blocks a side; "
                                    "give {} or more, or 0 (every sample a unit)",
                                    opts->blocks, opts->alpha, fewest_units(opts->alpha)));
    CompareOptions o;
    o.threshold = opts->threshold_percent / 100;
    o.alpha = opts->alpha;
    o.min_samples = opts->min_samples;
    o.blocks = opts->blocks;
    o.allow_different_devices = opts->allow_different_devices;
    RunInfo base_info, new_info;
    const std::vector<ProblemResult> base = read_results(opts->base, &base_info);
    const std::vector<ProblemResult> next = read_results(opts->next, &new_info);
    CompareReport report = compare_results(base_info, base, new_info, next, o);
    report.base_name = opts->base;
    report.new_name = opts->next;
    fmt::print("{}", compare_table(report));
    if (!opts->markdown.empty()) {
      // Appended, not replaced: $GITHUB_STEP_SUMMARY collects every step's output.
      std::ofstream out(opts->markdown, std::ios::app);
      out << compare_markdown(report) << "\n";
      if (!out) throw Error(fmt::format("{}: cannot write the markdown summary", opts->markdown));
    }
    exit_code = report.regression() ? 1 : 0;
  });
}

}  // namespace ktune::cli
