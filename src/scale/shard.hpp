// Shards: one slice of a suite's problems for one job of a cluster job array. Shard I of N takes
// the problems whose index in the suite is I modulo N: deterministic (the same suite gives every
// job the same answer, with no coordination), disjoint and together exact, and a suite sorted by
// size spreads its large problems over the jobs.
//
// A job array's task finds its shard in its environment when --shard is not given:
// Slurm's SLURM_ARRAY_TASK_ID, counted from SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT
// tasks; a Kubernetes Indexed Job's JOB_COMPLETION_INDEX of KTUNE_SHARD_COUNT (Kubernetes does
// not export the completion count: the Job's manifest sets it, as docs/scale.md's does).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct Shard {
  int index = 0, count = 1;
  bool contains(size_t item) const { return static_cast<int>(item % static_cast<size_t>(count)) == index; }
  std::string str() const;  // "I/N"
  bool operator==(const Shard&) const = default;
};

// "I/N" with 0 <= I < N; anything else throws ConfigError saying what is wrong.
Shard parse_shard(std::string_view text);

// Reads an environment variable, nullptr where it is unset (std::getenv, or a test's map).
using EnvLookup = std::function<const char*(const char*)>;

// The job-array task's shard, or nothing outside a job array. Slurm's variables win over
// Kubernetes's; a variable that is set but malformed throws ConfigError naming it.
std::optional<Shard> shard_from_environment(const EnvLookup& env);

// Which of `n` items shard `s` takes, in order.
std::vector<size_t> shard_items(size_t n, const Shard& s);

}  // namespace ktune
