// `ktune merge --out FILE INPUT...`: combines what the shards of a job array wrote (--shard, or a
// Slurm / Kubernetes job array's own variables). Inputs are either all best-config caches
// (best_configs.json: FILE is a cache, merged into what it already holds, the faster entry kept
// per key, store/cache_merge.hpp) or all results files (FILE.json and FILE.csv, every problem
// once, store/results_merge.hpp). Several GPU models in one output are refused unless
// --allow-mixed-devices.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "families/family.hpp"
#include "store/cache.hpp"
#include "store/cache_merge.hpp"
#include "store/results.hpp"
#include "store/results_merge.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/gzip_file.hpp"

namespace ktune::cli {
namespace {

enum class FileKind { cache, results };

FileKind kind_of(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) throw ConfigError(fmt::format("{}: no such file", path.string()));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file_inflated(path));
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not JSON ({})", path.string(), e.what()));
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
  if (j.is_object() && j.contains("entries")) return FileKind::cache;
  if (j.is_object() && j.contains("problems")) return FileKind::results;
  throw ConfigError(fmt::format("{}: neither a best-config cache (\"entries\") nor a results file (\"problems\")",
                                path.string()));
}

void merge_cache_files(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs,
                       bool allow_mixed) {
  std::vector<std::vector<CacheEntry>> entries;
  for (const std::filesystem::path& in : inputs) {
    BestConfigCache cache(in);
    entries.push_back(cache.list());
    for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
  }
  BestConfigCache target(out);
  CacheMerge merged;
  target.rewrite([&](std::vector<CacheEntry> existing) {
    entries.push_back(std::move(existing));  // what the output already holds is one more input
    merged = merge_caches(entries, allow_mixed);
    return merged.entries;
  });
  fmt::print("{}: {} entries from {} caches ({} replaced by faster ones under the same key); {}\n", out.string(),
             merged.entries.size(), inputs.size(), merged.replaced,
             merged.devices.empty() ? std::string("no GPU") : merged.devices.front());
}

void merge_results_files(const std::filesystem::path& out, const std::vector<std::filesystem::path>& inputs,
                         bool allow_mixed) {
  std::vector<ResultsInput> loaded;
  for (const std::filesystem::path& in : inputs) {
    ResultsInput r;
    r.origin = in.string();
    r.problems = read_results(in, &r.info);
    loaded.push_back(std::move(r));
  }
  const ResultsMerge merged = merge_results(loaded, allow_mixed);
  RunInfo info = make_run_info(merged.info.device);  // this command's argv, the inputs' device
  info.started_at = merged.info.started_at;
  info.nvrtc_version = merged.info.nvrtc_version;
  std::filesystem::path stem = out;
  if (stem.extension() == ".json") stem.replace_extension();
  const auto [json_path, csv_path] = write_results(stem.parent_path().empty() ? "." : stem.parent_path(),
                                                   stem.filename().string(), info, merged.problems,
                                                   problem_columns(merged.problems));
  fmt::print("{}, {}: {} problems from {} files\n", json_path.string(), csv_path.string(), merged.problems.size(),
             inputs.size());
}

}  // namespace

void setup_merge(CLI::App& app, int& exit_code) {
  struct Options {
    std::string out;
    std::vector<std::string> inputs;
    bool allow_mixed = false;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("merge", "combine the caches or results files of shards (--shard, job arrays)");
  cmd->add_option("inputs", opts->inputs, "best-config caches (best_configs.json) or results .json files")->required();
  cmd->add_option("--out", opts->out,
                  "the merged cache file (merged into what it holds), or the results stem (writes .json and .csv)")
      ->required();
  cmd->add_flag("--allow-mixed-devices", opts->allow_mixed, "merge entries measured on different GPU models");
  cmd->callback([opts, &exit_code] {
    std::vector<std::filesystem::path> inputs(opts->inputs.begin(), opts->inputs.end());
    const FileKind kind = kind_of(inputs.front());
    for (const std::filesystem::path& in : inputs)
      if (kind_of(in) != kind)
        throw ConfigError(fmt::format("{} is a {} but {} is a {}: merge caches with caches, results with results",
                                      in.string(), kind_of(in) == FileKind::cache ? "cache" : "results file",
                                      inputs.front().string(), kind == FileKind::cache ? "cache" : "results file"));
    if (kind == FileKind::cache)
      merge_cache_files(opts->out, inputs, opts->allow_mixed);
    else
      merge_results_files(opts->out, inputs, opts->allow_mixed);
    exit_code = 0;
  });
}

}  // namespace ktune::cli
