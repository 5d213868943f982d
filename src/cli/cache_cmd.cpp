// `ktune cache list | show PATTERN | clear [--match PATTERN]`: the best-config cache.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "store/cache.hpp"

namespace ktune::cli {

void setup_cache(CLI::App& app, int& exit_code) {
  struct Options {
    std::string cache_dir;
    std::string pattern;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("cache", "list, show or clear cached best configurations");
  cmd->require_subcommand(1);
  cmd->add_option("--cache-dir", opts->cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  auto open = [opts] {
    CommonFlags c;
    c.cache_dir = opts->cache_dir;
    return BestConfigCache(cli::cache_dir(c) / "best_configs.json");
  };
  auto warn = [](BestConfigCache& cache) {
    for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
  };

  // fallthrough: `ktune cache list --cache-dir X` works as well as `ktune cache --cache-dir X list`.
  cmd->add_subcommand("list", "one line per entry")->fallthrough()->callback([open, warn, &exit_code] {
    BestConfigCache cache = open();
    auto entries = cache.list();
    warn(cache);
    fmt::print("{} entries in {}\n", entries.size(), cache.path().string());
    for (const CacheEntry& e : entries) {
      const CacheKey& k = e.key;
      const Problem problem{k.family, k.dims, k.dtype, k.options};
      fmt::print("  {}  {:<40} {:.4f} ms {:>12} {} baseline  [{}]\n", describe(problem),
                 short_params(e.params), e.median_ms, rate_text(problem, e.tflops, e.gbps), ratio_text(e.ratio_vs_baseline),
                 k.gpu_name);
    }
    exit_code = 0;
  });

  CLI::App* show = cmd->add_subcommand("show", "full entries whose key contains PATTERN")->fallthrough();
  show->add_option("pattern", opts->pattern, "text to look for in the key (e.g. M=4096)");
  show->callback([open, warn, opts, &exit_code] {
    BestConfigCache cache = open();
    int shown = 0;
    for (const CacheEntry& e : cache.list()) {
      if (e.key.str().find(opts->pattern) == std::string::npos) continue;
      nlohmann::json j = e;
      fmt::print("{}\n", j.dump(2));
      ++shown;
    }
    warn(cache);
    if (!shown) fmt::print(stderr, "no entry matches '{}'\n", opts->pattern);
    exit_code = shown ? 0 : 1;
  });

  CLI::App* clear = cmd->add_subcommand("clear", "remove entries (all, or those matching --match)")->fallthrough();
  clear->add_option("--match", opts->pattern, "only entries whose key contains this text");
  clear->callback([open, warn, opts, &exit_code] {
    BestConfigCache cache = open();
    size_t removed = opts->pattern.empty()
                         ? cache.clear()
                         : cache.erase_if([&](const CacheEntry& e) {
                             return e.key.str().find(opts->pattern) != std::string::npos;
                           });
    warn(cache);
    fmt::print("removed {} entries from {}\n", removed, cache.path().string());
    exit_code = 0;
  });
}

}  // namespace ktune::cli
