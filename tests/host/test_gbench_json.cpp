// Google Benchmark JSON: the shape compare.py and github-action-benchmark read (context block,
// benchmarks[] with the fields and types Google Benchmark writes), names, units and failures.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "families/family.hpp"
#include "store/gbench_json.hpp"

namespace ktune {
namespace {

GbenchHost host() { return GbenchHost{"2026-11-21T21:38:28+01:00", "gpu-runner-7", 16, {0.5, 0.25, 0.125}}; }

RunInfo info() {
  RunInfo i;
  i.argv = {"/usr/local/bin/ktune", "bench", "suites/default.json", "--format", "gbench"};
  i.command = "ktune bench suites/default.json --format gbench";
  i.ktune_version = "0.1.0";
  i.nvrtc_version = "13.0";
  i.device.name = "NVIDIA H100 80GB HBM3";
  i.device.cc_major = 9;
  i.device.sm_count = 132;
  i.device.driver_version = 13000;
  return i;
}

CandidateRecord timed(const std::string& source, double median_ms, size_t n) {
  CandidateRecord rec;
  rec.source = source;
  rec.role = source == "cublas" ? Role::baseline : Role::candidate;
  rec.kernel_name = source == "cublas" ? "cublasGemmEx (fp16, fp32 accumulate)" : "ktune_gemm_mma<...>";
  rec.disposition = Disposition::passed;
  rec.time = TimeStats{n, median_ms, median_ms, median_ms, median_ms, 0, median_ms, median_ms};
  rec.tflops = 600;
  rec.gbps = 400;
  return rec;
}

std::vector<ProblemResult> bench_results() {
  std::vector<ProblemResult> r(2);
  r[0].problem = Problem{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
  r[0].records = {timed("cublas", 0.2, 100), timed("ktune", 0.25, 100)};
  r[0].records[1].params = {{"BLOCK_M", 128}, {"NUM_STAGES", 3}};
  r[1].problem = Problem{"gemm", {{"M", 128}, {"N", 6144}, {"K", 4096}}, "bf16", {{"layout", "rc"}}};
  r[1].records = {timed("cublas", 0.03, 100), timed("ktune", 0.04, 100)};
  r[1].records[1].disposition = Disposition::incorrect;
  r[1].records[1].reason = "max abs error 0.5";
  return r;
}

TEST(GbenchJson, Names) {
  EXPECT_EQ(gbench_name(Problem{"gemm", {{"M", 4096}, {"N", 2048}, {"K", 1024}}, "fp16", {{"layout", "rr"}}}, "ktune",
                        {"M", "N", "K"}),
            "gemm_fp16_rr/M:4096/N:2048/K:1024/ktune");
  // Dimensions not in the given order follow by name.
  EXPECT_EQ(gbench_name(Problem{"attn", {{"B", 4}, {"H", 32}, {"S", 1}}, "bf16", {{"causal", "yes"}}}, "cudnn", {"S"}),
            "attn_bf16_yes/S:1/B:4/H:32/cudnn");
}

TEST(GbenchJson, ContextBlock) {
  const nlohmann::ordered_json j = gbench_json(info(), bench_results(), host(), problem_columns(bench_results()));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.begin().key(), "context");  // as Google Benchmark writes it
  const auto& c = j.at("context");
  EXPECT_EQ(c.at("date"), "2026-11-21T21:38:28+01:00");
  EXPECT_EQ(c.at("host_name"), "gpu-runner-7");
  EXPECT_EQ(c.at("executable"), "/usr/local/bin/ktune");
  EXPECT_EQ(c.at("num_cpus"), 16);
  EXPECT_EQ(c.at("load_avg"), nlohmann::json({0.5, 0.25, 0.125}));
  EXPECT_TRUE(c.at("caches").is_array());
  EXPECT_EQ(c.at("json_schema_version"), 1);  // compare.py refuses any other
  EXPECT_TRUE(c.at("library_build_type") == "release" || c.at("library_build_type") == "debug");
  EXPECT_EQ(c.at("gpu"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(c.at("gpu_cc"), "9.0");
  EXPECT_EQ(c.at("gpu_sm_count"), "132");
  EXPECT_EQ(c.at("driver_version"), "13000");
  EXPECT_EQ(c.at("command"), "ktune bench suites/default.json --format gbench");
}

TEST(GbenchJson, BenchmarksHaveGoogleBenchmarksFields) {
  const nlohmann::ordered_json j = gbench_json(info(), bench_results(), host(), problem_columns(bench_results()));
  const auto& b = j.at("benchmarks");
  ASSERT_EQ(b.size(), 4u);  // per problem: ktune, then cublas

  const auto& best = b[0];
  EXPECT_EQ(best.at("name"), "gemm_fp16_rr/M:4096/N:4096/K:4096/ktune");
  EXPECT_EQ(best.at("run_name"), best.at("name"));
  EXPECT_EQ(best.at("run_type"), "iteration");
  EXPECT_EQ(best.at("family_index"), 0);
  EXPECT_EQ(best.at("per_family_instance_index"), 0);
  EXPECT_EQ(best.at("repetitions"), 1);
  EXPECT_EQ(best.at("repetition_index"), 0);
  EXPECT_EQ(best.at("threads"), 1);
  EXPECT_EQ(best.at("iterations"), 100);
  EXPECT_TRUE(best.at("iterations").is_number_integer());
  EXPECT_DOUBLE_EQ(best.at("real_time").get<double>(), 250.0);  // 0.25 ms median, in us
  EXPECT_DOUBLE_EQ(best.at("cpu_time").get<double>(), 250.0);
  EXPECT_EQ(best.at("time_unit"), "us");
  EXPECT_DOUBLE_EQ(best.at("TFLOPS").get<double>(), 600);
  EXPECT_EQ(best.at("label"), "BLOCK_M=128 NUM_STAGES=3");
  EXPECT_FALSE(best.contains("error_occurred"));

  const auto& ref = b[1];
  EXPECT_EQ(ref.at("name"), "gemm_fp16_rr/M:4096/N:4096/K:4096/cublas");
  EXPECT_EQ(ref.at("per_family_instance_index"), 1);
  EXPECT_DOUBLE_EQ(ref.at("real_time").get<double>(), 200.0);
  EXPECT_EQ(ref.at("label"), "cublasGemmEx (fp16, fp32 accumulate)");

  // A kernel that failed verification: an error entry, as SkipWithError gives.
  const auto& failed = b[2];
  EXPECT_EQ(failed.at("name"), "gemm_bf16_rc/M:128/N:6144/K:4096/ktune");
  EXPECT_EQ(failed.at("family_index"), 1);
  EXPECT_EQ(failed.at("error_occurred"), true);
  EXPECT_EQ(failed.at("error_message"), "incorrect: max abs error 0.5");
  EXPECT_EQ(b[3].at("name"), "gemm_bf16_rc/M:128/N:6144/K:4096/cublas");
  EXPECT_FALSE(b[3].contains("error_occurred"));

  // Every entry has what compare.py needs to compare it (is_potentially_comparable_benchmark).
  for (const auto& e : b)
    for (const char* key : {"name", "real_time", "cpu_time", "time_unit", "iterations", "run_type"})
      EXPECT_TRUE(e.contains(key)) << e.dump() << " lacks " << key;
}

TEST(GbenchJson, TuningFileGivesItsWinner) {
  // The committed H100 sweep: ~160 candidates, one reference. The ktune entry is the fastest
  // passed candidate.
  RunInfo i;
  const auto results = read_results(KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json.gz", &i);
  double fastest = 1e30;
  for (const auto& rec : results.at(0).records)
    if (rec.source == "ktune" && rec.disposition == Disposition::passed && rec.time)
      fastest = std::min(fastest, rec.time->median);
  const nlohmann::ordered_json j = gbench_json(i, results, host());
  ASSERT_EQ(j.at("benchmarks").size(), 2u);
  EXPECT_NEAR(j.at("benchmarks")[0].at("real_time").get<double>(), fastest * 1e3, 1e-9);
  EXPECT_EQ(j.at("context").at("gpu"), "NVIDIA H100 80GB HBM3");
}

TEST(GbenchJson, HostNowIsFilledIn) {
  const GbenchHost h = gbench_host_now();
  EXPECT_GT(h.num_cpus, 0);
  EXPECT_FALSE(h.host_name.empty());
  // "2026-11-21T21:38:28+01:00"
  ASSERT_EQ(h.date.size(), 25u) << h.date;
  EXPECT_EQ(h.date[10], 'T');
  EXPECT_EQ(h.date[22], ':');
}

}  // namespace
}  // namespace ktune
