// `ktune bench` end to end on a one-problem suite with a two-candidate sweep: it tunes what the
// cache lacks, measures the winner and cuBLAS with the requested samples, writes every output,
// answers from the cache next time, refuses with --no-tune on a cold cache, and two runs compare.
#include <cuda_runtime.h>
#include <map>
#include <nlohmann/json.hpp>

#include "gpu_test_support.hpp"
#include "store/cache.hpp"
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
  EXPECT_GT(results[0].records[1].ratio_vs_baseline, 0);
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

// --gpus: a worker per listed GPU takes problems from one queue. This machine may have one GPU,
// so two workers share it (0,0): the queue, the per-problem results in suite order and the one
// cache are what is tested, not speed. The same problems benched without --gpus must get the
// same configurations from the cache the parallel run wrote.
TEST(Bench, GpusSpreadsProblemsOverWorkersIntoOneResultsFileAndCache) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("bench-gpus");
  const std::string suite = std::string(KTUNE_SOURCE_DIR) + "/tests/gpu/data/bench_suite_4.json";
  const std::string common = " --samples 20 --rounds 2 --no-progress --out " + (dir / "out").string() +
                             " --cache-dir " + (dir / "cache").string();
  ASSERT_EQ(test::run_ktune("bench " + suite + " --gpus 0,0 --stem parallel" + common, dir / "parallel.txt"), 0)
      << read_file(dir / "parallel.txt");
  const std::string log = read_file(dir / "parallel.txt");
  EXPECT_NE(log.find("x 2 GPUs"), std::string::npos) << log;
  const auto parallel = read_results(dir / "out" / "parallel.json", nullptr);
  ASSERT_EQ(parallel.size(), 4u);
  const std::vector<int64_t> rows = {1024, 512, 1000, 256};
  for (size_t i = 0; i < parallel.size(); ++i) {
    EXPECT_EQ(parallel[i].problem.dims.at("M"), rows[i]) << "suite order";
    ASSERT_EQ(parallel[i].records.size(), 2u);
    EXPECT_EQ(parallel[i].records[1].disposition, Disposition::passed) << parallel[i].records[1].reason;
  }
  ASSERT_EQ(test::run_ktune("bench " + suite + " --no-tune --stem serial" + common, dir / "serial.txt"), 0)
      << read_file(dir / "serial.txt");
  const auto serial = read_results(dir / "out" / "serial.json", nullptr);
  ASSERT_EQ(serial.size(), 4u);
  for (size_t i = 0; i < serial.size(); ++i) EXPECT_EQ(serial[i].records[1].params, parallel[i].records[1].params);

  // Bad lists are refused before any work, with the reason.
  EXPECT_EQ(test::run_ktune("bench " + suite + " --gpus 0,x" + common, dir / "bad.txt"), 2);
  EXPECT_NE(read_file(dir / "bad.txt").find("'x' is not a GPU index"), std::string::npos) << read_file(dir / "bad.txt");
  EXPECT_EQ(test::run_ktune("bench " + suite + " --gpus 64" + common, dir / "missing.txt"), 2);
  EXPECT_NE(read_file(dir / "missing.txt").find("GPU 64 does not exist"), std::string::npos)
      << read_file(dir / "missing.txt");
  fs::remove_all(dir);
}

// Shards 0/2 and 1/2 benched separately (each with its own cache) and merged give the cache one
// run of the whole suite gives: the same keys, the same configurations. --max-candidates 1 makes
// each winner the sweep's first candidate, so the comparison does not hang on timing noise.
TEST(Bench, ShardsMergedGiveTheCacheOfOneRun) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("bench-shards");
  const std::string suite = std::string(KTUNE_SOURCE_DIR) + "/tests/gpu/data/bench_suite_4.json";
  const std::string common = " --samples 10 --rounds 2 --max-candidates 1 --no-progress --out " + (dir / "out").string();
  ASSERT_EQ(test::run_ktune("bench " + suite + " --stem whole --cache-dir " + (dir / "whole").string() + common,
                            dir / "whole.txt"),
            0)
      << read_file(dir / "whole.txt");
  for (const char* shard : {"0", "1"})
    ASSERT_EQ(test::run_ktune("bench " + suite + " --shard " + shard + "/2 --stem part" + shard + " --cache-dir " +
                                  (dir / ("part" + std::string(shard))).string() + common,
                              dir / ("part" + std::string(shard) + ".txt")),
              0)
        << read_file(dir / ("part" + std::string(shard) + ".txt"));
  ASSERT_EQ(test::run_ktune("merge --out " + (dir / "merged.json").string() + " " +
                                (dir / "part0" / "best_configs.json").string() + " " +
                                (dir / "part1" / "best_configs.json").string(),
                            dir / "merge.txt"),
            0)
      << read_file(dir / "merge.txt");
  const auto whole = BestConfigCache(dir / "whole" / "best_configs.json").list();
  const auto merged = BestConfigCache(dir / "merged.json").list();
  ASSERT_EQ(whole.size(), 4u);
  ASSERT_EQ(merged.size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(merged[i].key, whole[i].key) << merged[i].key.str() << "\n" << whole[i].key.str();
    EXPECT_EQ(merged[i].params, whole[i].params) << whole[i].key.str();
    EXPECT_EQ(merged[i].winner_config, whole[i].winner_config);
  }
  fs::remove_all(dir);
}

// --budget ends a search early: what was not searched says so, and a winner is still chosen,
// verified and cached from what was.
TEST(Search, BudgetEndsTheSearchAndSaysWhy) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("search-budget");
  ASSERT_EQ(test::run_ktune("gemm --m 2048 --budget 0.01 --no-progress --cache-dir " + (dir / "cache").string() +
                                " --out " + (dir / "out").string(),
                            dir / "log.txt"),
            0)
      << read_file(dir / "log.txt");
  EXPECT_NE(read_file(dir / "log.txt").find("--budget of 0.01 s"), std::string::npos) << read_file(dir / "log.txt");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "out"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  const auto results = read_results(files.front(), nullptr);
  ASSERT_EQ(results.size(), 1u);
  size_t passed = 0, budget = 0;
  for (const CandidateRecord& rec : results[0].records) {
    if (rec.is_baseline()) continue;
    passed += rec.disposition == Disposition::passed;
    budget += rec.reason.find("--budget of 0.01 s was spent") != std::string::npos;
  }
  EXPECT_GE(passed, 1u);
  EXPECT_LE(passed, 12u);  // the first batch at most
  EXPECT_GT(budget, 0u);
  // cuBLAS timed before the search and again after its pass, in the file: each one-pass record's
  // ratio is the second over its own median.
  ASSERT_TRUE(results[0].sweep_baseline.has_value());
  EXPECT_GT(results[0].sweep_baseline->before_ms, 0);
  EXPECT_GT(results[0].sweep_baseline->after_ms, 0);
  size_t one_pass = 0;
  for (const CandidateRecord& rec : results[0].records)
    if (!rec.is_baseline() && rec.disposition == Disposition::passed && rec.rounds.empty() && rec.time) {
      ++one_pass;
      EXPECT_NEAR(rec.ratio_vs_baseline, results[0].sweep_baseline->after_ms / rec.time->median,
                  1e-9 * rec.ratio_vs_baseline)
          << rec.kernel_name;
    }
  if (passed > 4) EXPECT_GE(one_pass, 1u);  // at most 4 finalists: the rest took one pass
  EXPECT_EQ(BestConfigCache(dir / "cache" / "best_configs.json").list().size(), 1u);
  fs::remove_all(dir);
}

// An fp8 problem whose C rows are not 4-byte multiples (N = 251): cuBLASLt has no algorithm for
// it, and ktune tunes it anyway (gemm_mma's fp8 path), verifies against the fp32 reference,
// caches the winner and reports that there is no library baseline instead of a ratio.
TEST(Bench, ProblemNoLibraryRunsIsTunedAndVerifiedWithoutARatio) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("bench-no-baseline");
  int major = 0, minor = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
  if (major * 10 + minor < 89) GTEST_SKIP() << "no fp8 tensor cores";
  write_file_atomic(dir / "suite.json",
                    R"({"name": "no-baseline", "problems": [{"family": "gemm", "M": 256, "N": 251, "K": 512, )"
                    R"("dtype": "fp8", "layout": "rc"}]})");
  ASSERT_EQ(test::run_ktune("bench " + (dir / "suite.json").string() + " --samples 30 --rounds 3 --no-progress --out " +
                                (dir / "out").string() + " --stem run --cache-dir " + (dir / "cache").string(),
                            dir / "log.txt"),
            0)
      << read_file(dir / "log.txt");
  EXPECT_NE(read_file(dir / "log.txt").find("no library baseline"), std::string::npos) << read_file(dir / "log.txt");
  const auto results = read_results(dir / "out" / "run.json", nullptr);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].records.size(), 2u);
  const CandidateRecord& baseline = results[0].records[0];
  EXPECT_TRUE(baseline.is_baseline());
  EXPECT_EQ(baseline.disposition, Disposition::not_run);
  EXPECT_NE(baseline.reason.find("cuBLASLt has no fp8 algorithm"), std::string::npos) << baseline.reason;
  EXPECT_FALSE(baseline.time.has_value());
  const CandidateRecord& best = results[0].records[1];
  EXPECT_EQ(best.disposition, Disposition::passed) << best.reason;
  EXPECT_EQ(best.config_name, "gemm_mma");
  EXPECT_EQ(best.samples_ms.size(), 30u);
  EXPECT_EQ(best.ratio_vs_baseline, 0);
  EXPECT_GT(best.tflops, 0);
  EXPECT_EQ(BestConfigCache(dir / "cache" / "best_configs.json").list().size(), 1u);
  fs::remove_all(dir);
}

// A problem no candidate passes: bench exits 1 and says why, most common reason first; its results
// name the reason, and every record of the tuning is kept beside them (<stem>.tuning.json).
TEST(Bench, ProblemNothingPassesKeepsTheTuningsRecordsAndSaysWhy) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("bench-nothing-passes");
  const std::string suite = std::string(KTUNE_SOURCE_DIR) + "/tests/gpu/data/bench_suite_wrong.json";
  EXPECT_EQ(test::run_ktune("bench " + suite + " --samples 30 --rounds 3 --no-progress --exhaustive --out " +
                                (dir / "out").string() + " --stem run --cache-dir " + (dir / "cache").string(),
                            dir / "log.txt"),
            1);
  const std::string log = read_file(dir / "log.txt");
  EXPECT_NE(log.find("no candidate passed; why, most common first:"), std::string::npos) << log;
  EXPECT_NE(log.find("incorrect: "), std::string::npos) << log;
  EXPECT_NE(log.find("run.tuning.json"), std::string::npos) << log;

  const auto results = read_results(dir / "out" / "run.json", nullptr);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_FALSE(results[0].records.empty());
  const CandidateRecord& best = results[0].records.back();
  EXPECT_NE(best.disposition, Disposition::passed);
  EXPECT_NE(best.reason.find("most common: "), std::string::npos) << best.reason;

  const auto tuning = read_results(dir / "out" / "run.tuning.json", nullptr);
  ASSERT_EQ(tuning.size(), 1u);
  std::map<int64_t, std::string> reasons;
  for (const CandidateRecord& rec : tuning[0].records)
    if (!rec.is_baseline()) {
      EXPECT_EQ(rec.disposition, Disposition::incorrect) << rec.reason;
      reasons[rec.params.at("FAULT")] = rec.reason;
    }
  EXPECT_EQ(reasons.size(), 2u);
  EXPECT_NE(reasons[7].find("right on its first launch, wrong now"), std::string::npos) << reasons[7];
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
