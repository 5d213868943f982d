// `ktune report RESULTS.json [--out DIR] [--ceilings FILE]`: roofline figures for every record of
// a results file, written as <stem>-report.{json,csv,md,html} (report/writers.hpp). Ceilings come
// from --ceilings, else from `ktune ceilings` on that device, else the datasheet (labelled).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "families/family.hpp"
#include "report/ceilings_choice.hpp"
#include "report/writers.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune::cli {

void setup_report(CLI::App& app, int& exit_code) {
  struct Options {
    std::string results;
    std::string out;
    std::string ceilings;
    std::string cache_dir;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "report", "roofline report of a results file: JSON, CSV, markdown and a self-contained HTML page");
  cmd->add_option("results", opts->results, "a results .json written by gemm, sweep or bench (or that file gzipped)")->required();
  cmd->add_option("--out", opts->out, "folder for the report files (default: the results file's folder)");
  cmd->add_option("--ceilings", opts->ceilings, "ceilings file to use (default: <cache dir>/ceilings.json, "
                                                "else datasheet values)");
  cmd->add_option("--cache-dir", opts->cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  cmd->callback([opts, &exit_code] {
    const std::filesystem::path results_path = opts->results;
    if (!std::filesystem::exists(results_path)) throw ConfigError(fmt::format("{}: no such file", opts->results));
    RunInfo run;
    std::vector<ProblemResult> results = read_results(results_path, &run);

    std::optional<std::filesystem::path> named;
    if (!opts->ceilings.empty()) named = opts->ceilings;
    const std::filesystem::path cache =
        opts->cache_dir.empty() ? default_cache_dir() : std::filesystem::path(opts->cache_dir);
    const Ceilings ceilings = choose_ceilings(run.device, named, cache / "ceilings.json");
    const Report report = build_report(run, results, ceilings, results_path.string());

    if (ceilings.source == "datasheet")
      fmt::print("ceilings: {} (not measured; `ktune ceilings` on the GPU measures them)\n", ceilings.label);
    else
      fmt::print("ceilings: measured on {} at {}\n", ceilings.label, ceilings.measured_at);
    for (const ReportProblem& p : report.problems) {
      fmt::print("{}: intensity {:.1f} FLOP/B, ridge {:.1f} -> {}-bound", describe(p.problem), p.intensity, p.ridge,
                 p.bound);
      for (const auto& i : {p.winner, p.baseline})
        if (i)
          fmt::print("; {} {} ({:.1f}% of roof)",
                     p.records[*i].role == Role::baseline ? provider_name(p.records[*i].source) : "ktune best",
                     record_rate(p, p.records[*i]), pct_of_roof(p, p.records[*i].roof));
      fmt::print("\n");
    }

    const std::filesystem::path out = opts->out.empty() ? results_path.parent_path() : std::filesystem::path(opts->out);
    const ReportFiles files = write_report(report, out, results_stem(results_path) + "-report");
    fmt::print("report: {}\n        {}\n        {}\n        {}\n", files.html.string(), files.markdown.string(),
               files.json.string(), files.csv.string());
    exit_code = 0;
  });
}

}  // namespace ktune::cli
