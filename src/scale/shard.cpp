#include "scale/shard.hpp"

#include <fmt/format.h>

#include <charconv>

#include "util/error.hpp"

namespace ktune {
namespace {

// A whole decimal number and nothing else.
std::optional<long long> whole_number(std::string_view text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

long long env_number(const EnvLookup& env, const char* name) {
  const char* text = env(name);
  const std::optional<long long> value = text ? whole_number(text) : std::nullopt;
  if (!value) throw ConfigError(fmt::format("{}={} is not a whole number", name, text ? text : "(unset)"));
  return *value;
}

Shard checked(long long index, long long count, const std::string& origin) {
  if (count < 1 || count > 1'000'000)
    throw ConfigError(fmt::format("{}: the shard count must be between 1 and 1000000 (got {})", origin, count));
  if (index < 0 || index >= count)
    throw ConfigError(fmt::format("{}: the shard index must be in 0..{} (got {})", origin, count - 1, index));
  return {static_cast<int>(index), static_cast<int>(count)};
}

}  // namespace

std::string Shard::str() const { return fmt::format("{}/{}", index, count); }

Shard parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  const std::optional<long long> index = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(0, slash));
  const std::optional<long long> count = slash == std::string_view::npos ? std::nullopt : whole_number(text.substr(slash + 1));
  if (!index || !count) throw ConfigError(fmt::format("--shard {}: expected I/N, e.g. 0/4", text));
  return checked(*index, *count, fmt::format("--shard {}", text));
}

std::optional<Shard> shard_from_environment(const EnvLookup& env) {
  if (env("SLURM_ARRAY_TASK_ID")) {
    // Array indices need not start at 0 (--array=1-8): count from the array's first index.
    const long long id = env_number(env, "SLURM_ARRAY_TASK_ID");
    const long long min = env("SLURM_ARRAY_TASK_MIN") ? env_number(env, "SLURM_ARRAY_TASK_MIN") : 0;
    const long long count = env_number(env, "SLURM_ARRAY_TASK_COUNT");
    return checked(id - min, count, "Slurm job array (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of SLURM_ARRAY_TASK_COUNT)");
  }
  if (env("JOB_COMPLETION_INDEX")) {
    if (!env("KTUNE_SHARD_COUNT"))
      throw ConfigError("JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but KTUNE_SHARD_COUNT is not: set it to "
                        "the Job's completions, or pass --shard I/N");
    return checked(env_number(env, "JOB_COMPLETION_INDEX"), env_number(env, "KTUNE_SHARD_COUNT"),
                   "Kubernetes Indexed Job (JOB_COMPLETION_INDEX of KTUNE_SHARD_COUNT)");
  }
  return std::nullopt;
}

std::vector<size_t> shard_items(size_t n, const Shard& s) {
  std::vector<size_t> items;
  for (size_t i = static_cast<size_t>(s.index); i < n; i += static_cast<size_t>(s.count)) items.push_back(i);
  return items;
}

}  // namespace ktune
