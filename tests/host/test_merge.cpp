// Merging the shards' caches and results (store/cache_merge.hpp, store/results_merge.hpp): the
// union, the faster entry under a shared key, no dependence on the order of the inputs, and
// refusals (several GPU models; a problem in two results files).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/cache_merge.hpp"
#include "store/results_merge.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

CacheEntry entry(int m, double median_ms, const std::string& gpu = "NVIDIA H100 80GB HBM3",
                 const std::string& created = "2026-11-25T10:00:00Z") {
  CacheEntry e;
  e.key.family = "gemm";
  e.key.config_name = "gemm_wgmma";
  e.key.kernel_hash = "0123456789abcdef";
  e.key.dtype = "fp16";
  e.key.options = {{"layout", "rr"}};
  e.key.dims = {{"M", m}, {"N", 4096}, {"K", 4096}};
  e.key.gpu_name = gpu;
  e.key.cc_major = 9;
  e.key.sm_count = 132;
  e.key.driver_version = 13000;
  e.key.nvrtc_version = "13.0";
  e.params = {{"BLOCK_M", 128}, {"BLOCK_N", static_cast<int64_t>(median_ms * 1000)}};
  e.kernel_name = "k";
  e.median_ms = median_ms;
  e.created_at = created;
  return e;
}

std::string dump(const std::vector<CacheEntry>& entries) {
  nlohmann::json j = nlohmann::json::array();
  for (const CacheEntry& e : entries) j.push_back(e);
  return j.dump();
}

TEST(CacheMerge, KeepsTheUnionAndTheFasterEntryPerKey) {
  const std::vector<CacheEntry> shard0 = {entry(1024, 0.50), entry(2048, 1.10)};
  const std::vector<CacheEntry> shard1 = {entry(2048, 1.00), entry(4096, 3.00)};
  const CacheMerge merged = merge_caches({shard0, shard1}, false);
  ASSERT_EQ(merged.entries.size(), 3u);
  EXPECT_EQ(merged.replaced, 1u);
  for (const CacheEntry& e : merged.entries)
    if (e.key.dims.at("M") == 2048) EXPECT_DOUBLE_EQ(e.median_ms, 1.00);
  EXPECT_EQ(merged.devices.size(), 1u);
}

TEST(CacheMerge, TheOrderOfTheInputsDoesNotMatter) {
  std::vector<std::vector<CacheEntry>> inputs = {
      {entry(1024, 0.50), entry(2048, 1.10)},
      {entry(2048, 1.00), entry(4096, 3.00)},
      {entry(2048, 1.00, "NVIDIA H100 80GB HBM3", "2026-11-24T09:00:00Z"), entry(1024, 0.70)},
      {}};
  const std::string first = dump(merge_caches(inputs, false).entries);
  std::vector<size_t> order = {0, 1, 2, 3};
  int orders = 0;
  do {
    std::vector<std::vector<CacheEntry>> permuted;
    for (size_t i : order) permuted.push_back(inputs[i]);
    EXPECT_EQ(dump(merge_caches(permuted, false).entries), first);
    ++orders;
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(orders, 24);
  // The tie at 1.00 ms goes to the earlier measurement whichever file held it.
  for (const CacheEntry& e : merge_caches(inputs, false).entries)
    if (e.key.dims.at("M") == 2048) EXPECT_EQ(e.created_at, "2026-11-24T09:00:00Z");
}

TEST(CacheMerge, RefusesSeveralGpuModelsUnlessAsked) {
  const std::vector<std::vector<CacheEntry>> inputs = {{entry(1024, 0.5)}, {entry(1024, 0.4, "NVIDIA H200")}};
  EXPECT_THROW(merge_caches(inputs, false), ConfigError);
  const CacheMerge merged = merge_caches(inputs, true);
  EXPECT_EQ(merged.entries.size(), 2u);  // different keys: neither replaces the other
  EXPECT_EQ(merged.devices.size(), 2u);
}

ResultsInput results(const std::string& origin, std::vector<int64_t> rows, const std::string& gpu = "NVIDIA H100",
                     const std::string& started = "2026-11-25T10:00:00Z") {
  ResultsInput in;
  in.origin = origin;
  in.info.device.name = gpu;
  in.info.started_at = started;
  for (int64_t r : rows) {
    ProblemResult p;
    p.problem = {"softmax", {{"rows", r}, {"cols", 4096}}, "fp16", {}};
    in.problems.push_back(p);
  }
  return in;
}

TEST(ResultsMerge, EveryProblemOnceInAnOrderOfItsOwn) {
  const ResultsMerge a = merge_results({results("s0.json", {8, 2}), results("s1.json", {4, 1}, "NVIDIA H100",
                                                                                            "2026-11-25T09:00:00Z")},
                                       false);
  const ResultsMerge b = merge_results({results("s1.json", {4, 1}, "NVIDIA H100", "2026-11-25T09:00:00Z"),
                                        results("s0.json", {8, 2})},
                                       false);
  ASSERT_EQ(a.problems.size(), 4u);
  for (size_t i = 0; i < a.problems.size(); ++i) EXPECT_EQ(a.problems[i].problem, b.problems[i].problem);
  EXPECT_EQ(a.info.started_at, "2026-11-25T09:00:00Z");
  EXPECT_EQ(b.info.started_at, "2026-11-25T09:00:00Z");
}

TEST(ResultsMerge, RefusesAProblemInTwoFilesAndSeveralGpuModels) {
  EXPECT_THROW(merge_results({results("s0.json", {8}), results("s1.json", {8})}, false), ConfigError);
  EXPECT_THROW(merge_results({results("s0.json", {8}), results("s1.json", {4}, "NVIDIA H200")}, false), ConfigError);
  EXPECT_EQ(merge_results({results("s0.json", {8}), results("s1.json", {4}, "NVIDIA H200")}, true).problems.size(), 2u);
  EXPECT_THROW(merge_results({}, false), ConfigError);
}

}  // namespace
}  // namespace ktune
