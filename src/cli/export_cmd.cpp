// `ktune export --format json|cpp`: the cache's tuned table for an application to compile in
// (store/dispatch_table.hpp), and `ktune lookup`: the configuration for a shape, tuned or the
// nearest tuned one, for scripts (JSON on stdout; exit 1 when no row matches).
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/current_winners.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "runtime/bundle.hpp"
#include "store/cache.hpp"
#include "store/dispatch_table.hpp"
#include "store/regret.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune::cli {
namespace {

std::vector<DispatchRow> cached_table(const std::string& cache_dir_flag) {
  CommonFlags c;
  c.cache_dir = cache_dir_flag;
  BestConfigCache cache(cache_dir(c) / "best_configs.json");
  std::vector<std::string> notes;
  std::vector<DispatchRow> table = dispatch_table(current_winners(cache.list(), notes));
  for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
  for (const std::string& n : notes) fmt::print(stderr, "note: {}\n", n);
  return table;
}

// "M=4000,N=4096" or "layout=rr" into name/value pairs.
std::vector<std::pair<std::string, std::string>> pairs(const std::string& text, const std::string& flag) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw ConfigError(fmt::format("{} {}: expected NAME=VALUE[,NAME=VALUE...]", flag, text));
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    start = comma + 1;
  }
  return out;
}

}  // namespace

void setup_export(CLI::App& app, int& exit_code) {
  struct Options {
    std::string format = "json", out, cache_dir, bundle;
    std::string family, dtype = "fp16", dims, options, gpu;
  };
  auto opts = std::make_shared<Options>();

  CLI::App* cmd = app.add_subcommand("export", "write the cache's tuned table (shape -> configuration) as JSON or C++");
  cmd->add_option("--format", opts->format, "json, or cpp (a header with the rows and a nearest-shape lookup())")
      ->check(CLI::IsMember({"json", "cpp"}))
      ->capture_default_str();
  cmd->add_option("--out", opts->out, "file to write (default: standard output)");
  cmd->add_option("--bundle", opts->bundle,
                  "write a folder the runtime library launches from instead (include/ktune/runtime.hpp): the table, "
                  "the configs and kernels its rows need, and each row's cubin for the GPU it was tuned on");
  cmd->add_option("--cache-dir", opts->cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  cmd->callback([opts, &exit_code] {
    const std::vector<DispatchRow> table = cached_table(opts->cache_dir);
    if (!opts->bundle.empty()) {
      if (!opts->out.empty()) throw ConfigError("--bundle writes a folder: give --out or --bundle, not both");
      CommonFlags c;
      c.cache_dir = opts->cache_dir;
      NvrtcCompiler compiler(cache_dir(c));
      const BundleWriteReport report = write_bundle(opts->bundle, table, compiler);
      for (const std::string& note : report.notes) fmt::print(stderr, "note: {}\n", note);
      fmt::print(stderr, "{}: {} rows, {} cubins\n", opts->bundle, report.rows, report.cubins);
      exit_code = report.rows == table.size() ? 0 : 1;
      return;
    }
    const std::string text = opts->format == "json" ? dispatch_json(table).dump(2) + "\n"
                                                    : dispatch_cpp(table, "ktune export --format cpp");
    if (opts->out.empty())
      fmt::print("{}", text);
    else {
      write_file_atomic(opts->out, text);
      fmt::print(stderr, "{}: {} rows\n", opts->out, table.size());
    }
    exit_code = 0;
  });

  CLI::App* look = app.add_subcommand("lookup", "the cached configuration for a shape, or the nearest tuned shape's");
  look->add_option("family", opts->family, "kernel family, e.g. gemm")->required();
  look->add_option("--dims", opts->dims, "the shape, e.g. M=4000,N=4096,K=4096 (every dimension)")->required();
  look->add_option("--dtype", opts->dtype, "element type")->capture_default_str();
  look->add_option("--options", opts->options, "family options, e.g. layout=rr (every option the family keys by)");
  look->add_option("--gpu", opts->gpu, "only rows tuned on this GPU (default: any)");
  look->add_option("--cache-dir", opts->cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  look->callback([opts, &exit_code] {
    Bindings dims;
    for (const auto& [name, value] : pairs(opts->dims, "--dims")) {
      try {
        size_t used = 0;
        dims[name] = std::stoll(value, &used);
        if (used != value.size()) throw std::invalid_argument(value);
      } catch (const std::exception&) {
        throw ConfigError(fmt::format("--dims: {}={} is not a whole number", name, value));
      }
    }
    ktune::Options options;
    if (!opts->options.empty())
      for (auto& [name, value] : pairs(opts->options, "--options")) options[name] = value;
    const std::vector<DispatchRow> table = cached_table(opts->cache_dir);
    const std::optional<NearestRow> found = nearest_row(table, opts->family, opts->dtype, options, dims, opts->gpu);
    if (!found) {
      fmt::print(stderr, "no tuned {} {} shape with these dimensions and options in the cache\n", opts->family,
                 opts->dtype);
      exit_code = 1;
      return;
    }
    nlohmann::json row = dispatch_json({*found->row}).at("rows").at(0);
    nlohmann::json answer = {{"exact", found->distance == 0},
                             {"distance", found->distance},
                             {"tuned_dims", found->row->dims},
                             {"row", row}};
    // What answers from this far away have cost, where `ktune bench --nearest-from` measured it.
    CommonFlags c;
    c.cache_dir = opts->cache_dir;
    const std::vector<RegretEntry> regrets = read_regret_file(cache_dir(c) / "regret.json");
    const RegretBucket bucket = regret_bucket_at(regrets, opts->family, found->distance);
    if (found->distance > 0 && bucket.count)
      answer["regret"] = {{"distance_from", bucket.low},   {"distance_to", bucket.high}, {"shapes", bucket.count},
                          {"median", bucket.median},       {"p90", bucket.p90},         {"worst", bucket.worst},
                          {"retune", bucket.retune()}};
    fmt::print("{}\n", answer.dump(2));
    if (found->distance > 0) {
      fmt::print(stderr, "not tuned for this shape: the nearest tuned one is {} (distance {:.3f}, log2 units)\n",
                 nlohmann::json(found->row->dims).dump(), found->distance);
      if (bucket.count)
        fmt::print(stderr, "measured ({} {} shapes at distance {} to {}): answering from the nearest costs a median "
                           "{:.1f}%, a tenth of them over {:.1f}%, at worst {:.1f}%{}\n",
                   bucket.count, opts->family, bucket.low, bucket.high, 100 * bucket.median, 100 * bucket.p90,
                   100 * bucket.worst, bucket.retune() ? ": tune this shape (ktune " + opts->family + " ...)" : "");
    }
    exit_code = 0;
  });
}

}  // namespace ktune::cli
