// What answering from the nearest tuned shape costs (store/regret.hpp): the file's round trip and
// merge, the buckets by distance with their quantiles and re-tune rule, and `ktune lookup`
// saying, for a shape it answers from afar, what such answers have cost where it was measured.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "run_ktune.hpp"
#include "store/cache.hpp"
#include "store/regret.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

RegretEntry entry(int64_t m, double distance, double own_ms, double nearest_ms, const std::string& family = "gemm") {
  RegretEntry e;
  e.problem = {family, {{"M", m}, {"N", m}, {"K", m}}, "fp16", {{"layout", "rr"}}};
  e.gpu = "NVIDIA H100 80GB HBM3";
  e.tuned_dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  e.distance = distance;
  e.own_config = e.nearest_config = "gemm_wgmma";
  e.own_params = {{"BLOCK_M", 128}};
  e.nearest_params = {{"BLOCK_M", 64}};
  e.own_ms = own_ms;
  e.nearest_ms = nearest_ms;
  return e;
}

TEST(Regret, BucketsByDistanceWithQuantilesAndTheRetuneRule) {
  std::vector<RegretEntry> all;
  for (int i = 0; i < 10; ++i) all.push_back(entry(4000 + i, 0.1, 1.0, 1.0 + 0.002 * i));  // near: 0-1.8%
  for (int i = 0; i < 10; ++i) all.push_back(entry(1000 + i, 3.0, 1.0, 1.0 + 0.05 * i));   // far: 0-45%
  all.push_back(entry(5000, 0.1, 1.0, 3.0, "add"));  // another family stays out
  const RegretBucket near = regret_bucket_at(all, "gemm", 0.2);
  EXPECT_EQ(near.count, 10u);
  EXPECT_NEAR(near.median, 0.008, 1e-9);  // the 5th of 10 by nearest rank
  EXPECT_NEAR(near.p90, 0.016, 1e-9);
  EXPECT_NEAR(near.worst, 0.018, 1e-9);
  EXPECT_FALSE(near.retune());
  const RegretBucket far = regret_bucket_at(all, "gemm", 2.5);
  EXPECT_EQ(far.count, 10u);
  EXPECT_NEAR(far.median, 0.20, 1e-9);
  EXPECT_TRUE(far.retune());
  EXPECT_EQ(regret_bucket_at(all, "gemm", 0.7).count, 0u);
  EXPECT_FALSE(regret_bucket_at(all, "gemm", 0.7).retune());
}

TEST(Regret, FileRoundTripsAndMergeReplacesTheSameProblem) {
  const fs::path dir = fs::temp_directory_path() / ("ktune_regret_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path file = dir / "regret.json";
  EXPECT_TRUE(read_regret_file(file).empty());
  merge_regret_file(file, {entry(1000, 2, 1.0, 1.5), entry(2000, 1, 1.0, 1.1)});
  merge_regret_file(file, {entry(1000, 2, 1.0, 1.2)});  // measured again
  const std::vector<RegretEntry> back = read_regret_file(file);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].problem.dims.at("M"), 1000);
  EXPECT_NEAR(back[1].regret(), 0.2, 1e-12);
  EXPECT_EQ(back[0].tuned_dims, entry(0, 0, 1, 1).tuned_dims);
  write_file_atomic(file, R"({"entries": [{"family": "gemm"}]})");
  EXPECT_THROW(read_regret_file(file), ConfigError);
  fs::remove_all(dir);
}

TEST(Regret, LookupSaysWhatAnswersFromThatFarHaveCost) {
  const fs::path dir = fs::temp_directory_path() / ("ktune_regret_lookup_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CacheEntry e;
  e.key.family = "gemm";
  e.key.config_name = e.winner_config = "gemm_wgmma";
  e.key.dtype = "fp16";
  e.key.options = {{"layout", "rr"}};
  e.key.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  e.key.gpu_name = "NVIDIA H100 80GB HBM3";
  e.kernel_name = "ktune_gemm_wgmma<__half, 128, 256>";
  e.params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}};
  e.median_ms = 0.2;
  BestConfigCache(dir / "best_configs.json").put(e);
  std::vector<RegretEntry> far;
  for (int i = 0; i < 5; ++i) far.push_back(entry(512 + i, 3.0, 1.0, 1.3));
  merge_regret_file(dir / "regret.json", far);

  const test::Ran near = test::run_ktune("lookup gemm --dims M=4000,N=4096,K=4096 --options layout=rr --cache-dir " + dir.string());
  EXPECT_EQ(near.exit_code, 0) << near.output;
  EXPECT_EQ(near.output.find("\"regret\""), std::string::npos) << "no shapes measured at that distance: " << near.output;
  const test::Ran afar = test::run_ktune("lookup gemm --dims M=512,N=512,K=512 --options layout=rr --cache-dir " + dir.string());
  EXPECT_EQ(afar.exit_code, 0) << afar.output;
  EXPECT_NE(afar.output.find("\"retune\": true"), std::string::npos) << afar.output;
  EXPECT_NE(afar.output.find("a median 30.0%"), std::string::npos) << afar.output;
  EXPECT_NE(afar.output.find("tune this shape"), std::string::npos) << afar.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
