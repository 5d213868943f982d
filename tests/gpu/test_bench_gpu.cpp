// `ktune bench` end to end on a one-problem suite with a two-candidate sweep: it tunes what the
// cache lacks, measures the winner and cuBLAS with the requested samples, writes every output,
// answers from the cache next time, refuses with --no-tune on a cold cache, and two runs compare.
#include <nlohmann/json.hpp>

#include "gpu_test_support.hpp"
#include "store/results.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string kSuite = std::string(KTUNE_SOURCE_DIR) + "/tests/gpu/data/bench_suite.json";

TEST(Bench, SuiteRunsCachesAndCompares) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("bench");
  const std::string common = " --samples 30 --rounds 3 --no-progress --format gbench --out " + (dir / "out").string() +
                             " --cache-dir " + (dir / "cache").string();

  // A cold cache with --no-tune: refused, and the problem is named.
  EXPECT_EQ(test::run_ktune("bench " + kSuite + " --no-tune --stem cold" + common, dir / "cold.txt"), 1);
  const std::string cold = read_file(dir / "cold.txt");
  EXPECT_NE(cold.find("gemm 1024x1024x1024 fp16 rr"), std::string::npos) << cold;
  EXPECT_FALSE(fs::exists(dir / "out" / "cold.json"));

  // First run: tunes (two candidates), then measures.
  ASSERT_EQ(test::run_ktune("bench " + kSuite + " --stem first" + common, dir / "first.txt"), 0)
      << read_file(dir / "first.txt");
  RunInfo info;
  const auto results = read_results(dir / "out" / "first.json", &info);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].records.size(), 2u);
  for (const CandidateRecord& rec : results[0].records) {
    EXPECT_EQ(rec.disposition, Disposition::passed) << rec.source << ": " << rec.reason;
    EXPECT_EQ(rec.samples_ms.size(), 30u) << rec.source;
    ASSERT_TRUE(rec.time.has_value());
    EXPECT_GT(rec.tflops, 0);
  }
  EXPECT_EQ(results[0].records[0].source, "cublas");
  EXPECT_EQ(results[0].records[1].source, "ktune");
  EXPECT_EQ(results[0].records[1].config_name, "bench_test_mma");
  EXPECT_GT(results[0].records[1].ratio_vs_reference, 0);
  for (const char* ext : {".csv", ".md"}) EXPECT_TRUE(fs::exists(dir / "out" / (std::string("first") + ext))) << ext;
  const auto gbench = nlohmann::json::parse(read_file(dir / "out" / "first.gbench.json"));
  ASSERT_EQ(gbench.at("benchmarks").size(), 2u);
  EXPECT_EQ(gbench.at("benchmarks")[0].at("name"), "gemm_fp16_rr/M:1024/N:1024/K:1024/ktune");
  EXPECT_EQ(gbench.at("benchmarks")[0].at("iterations"), 30);

  // Second run: from the cache (--no-tune succeeds), the same configuration.
  ASSERT_EQ(test::run_ktune("bench " + kSuite + " --no-tune --stem second" + common, dir / "second.txt"), 0)
      << read_file(dir / "second.txt");
  const auto again = read_results(dir / "out" / "second.json", nullptr);
  ASSERT_EQ(again.size(), 1u);
  ASSERT_EQ(again[0].records.size(), 2u);
  EXPECT_EQ(again[0].records[1].params, results[0].records[1].params);

  // The two runs compare: same device, every record matched; a verdict either way, never an error.
  const int rc = test::run_ktune("compare " + (dir / "out" / "first.json").string() + " " +
                                     (dir / "out" / "second.json").string() + " --markdown " +
                                     (dir / "compare.md").string(),
                                 dir / "compare.txt");
  const std::string table = read_file(dir / "compare.txt");
  EXPECT_TRUE(rc == 0 || rc == 1) << table;
  EXPECT_NE(table.find("cublas"), std::string::npos) << table;
  EXPECT_NE(table.find("ktune"), std::string::npos) << table;
  EXPECT_EQ(table.find("only in"), std::string::npos) << table;
  EXPECT_TRUE(fs::exists(dir / "compare.md"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
