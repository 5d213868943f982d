// Shards of a suite for job arrays (scale/shard.hpp): every split of n items into N shards is
// exact and disjoint, "I/N" parses or is refused with a reason, and a job array's task finds its
// shard in Slurm's or Kubernetes's variables.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "scale/shard.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

TEST(Shard, EverySplitIsExactAndDisjoint) {
  for (size_t n : {0, 1, 2, 7, 16, 25, 101})
    for (int count : {1, 2, 3, 4, 8, 16, 30}) {
      std::vector<int> taken(n, 0);
      size_t largest = 0, smallest = n;
      for (int index = 0; index < count; ++index) {
        const std::vector<size_t> items = shard_items(n, {index, count});
        largest = std::max(largest, items.size());
        smallest = std::min(smallest, items.size());
        for (size_t i : items) {
          ASSERT_LT(i, n);
          ++taken[i];
          EXPECT_TRUE((Shard{index, count}.contains(i)));
        }
      }
      for (size_t i = 0; i < n; ++i) EXPECT_EQ(taken[i], 1) << "item " << i << " of " << n << " in " << count << " shards";
      EXPECT_LE(largest - smallest, 1u) << n << " items in " << count << " shards are balanced";
    }
}

TEST(Shard, TheSameSuiteSplitsTheSameWayEveryTime) {
  EXPECT_EQ(shard_items(10, {1, 3}), (std::vector<size_t>{1, 4, 7}));
  EXPECT_EQ(shard_items(10, {0, 1}).size(), 10u);
}

TEST(Shard, ParsesIOfNAndRefusesTheRest) {
  EXPECT_EQ(parse_shard("0/2"), (Shard{0, 2}));
  EXPECT_EQ(parse_shard("7/8"), (Shard{7, 8}));
  EXPECT_EQ(parse_shard("3/8").str(), "3/8");
  for (const char* bad : {"", "1", "2/2", "-1/2", "1/0", "a/2", "1/2/3", "1 /2", "0/1000001"})
    EXPECT_THROW(parse_shard(bad), ConfigError) << bad;
}

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(Shard, AJobArrayTaskFindsItsShard) {
  EXPECT_FALSE(shard_from_environment(env_of({})).has_value());
  // Slurm, --array=0-3 and --array=1-4 (indices need not start at 0).
  EXPECT_EQ(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
            (Shard{2, 4}));
  EXPECT_EQ(shard_from_environment(env_of(
                {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
            (Shard{3, 4}));
  // Kubernetes Indexed Job: the index, and the count the manifest passes.
  EXPECT_EQ(shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "5"}, {"KTUNE_SHARD_COUNT", "8"}})),
            (Shard{5, 8}));
  EXPECT_THROW(shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "5"}})), ConfigError);
  EXPECT_THROW(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
               ConfigError);
  EXPECT_THROW(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})),
               ConfigError);
}

}  // namespace
}  // namespace ktune
