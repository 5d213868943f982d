// Benchmark suites: the committed default suite, every kind of bad input, and the markdown
// summary of a bench run.
#include <gtest/gtest.h>

#include <set>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "bench/suite.hpp"
#include "families/family.hpp"
#include "util/error.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif
namespace ktune {
namespace {

// Every committed suite loads and every problem in it is one its family accepts, so a typo in a
// suite is caught here and not on the GPU machine. The edges suite covers each of issue 12's
// categories in fp16, bf16, TF32 and fp8 and all four layouts.
TEST(Suite, EveryCommittedSuiteLoadsAndItsProblemsAreValid) {
  int suites = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KTUNE_SOURCE_DIR "/suites")) {
    if (entry.path().extension() != ".json") continue;
    ++suites;
    const Suite s = load_suite(entry.path());
    EXPECT_FALSE(s.problems.empty()) << entry.path();
    for (const SuiteProblem& p : s.problems) EXPECT_NO_THROW(check_problem(p.problem)) << entry.path() << ": " << describe(p.problem);
  }
  EXPECT_GE(suites, 10);
  const Suite edges = load_suite(KTUNE_SOURCE_DIR "/suites/edges.json");
  EXPECT_GE(edges.problems.size(), 30u);
  std::set<std::string> dtypes, layouts;
  for (const SuiteProblem& p : edges.problems) {
    dtypes.insert(p.problem.dtype);
    layouts.insert(p.problem.option("layout"));
  }
  EXPECT_EQ(dtypes, (std::set<std::string>{"bf16", "fp16", "fp32", "fp8"}));
  EXPECT_EQ(layouts, (std::set<std::string>{"cc", "cr", "rc", "rr"}));
}

TEST(Suite, DefaultSuiteHasTheAgreedProblems) {
  const Suite s = load_suite(KTUNE_SOURCE_DIR "/suites/default.json");
  EXPECT_EQ(s.name, "default");
  EXPECT_FALSE(s.description.empty());
  EXPECT_EQ(s.base_dir, std::filesystem::path(KTUNE_SOURCE_DIR "/suites"));
  std::vector<std::string> described;
  for (const SuiteProblem& p : s.problems) {
    described.push_back(describe(p.problem));
    EXPECT_TRUE(p.config.empty()) << "the default suite uses the family's default config";
  }
  const std::vector<std::string> expected = {
      "gemm 2048x2048x2048 fp16 rr", "gemm 4096x4096x4096 fp16 rr", "gemm 8192x8192x8192 fp16 rr",
      "gemm 1024x6144x4096 fp16 rr", "gemm 128x6144x4096 fp16 rr",  "gemm 4095x4097x4093 fp16 rr",
      "gemm 4096x4096x4096 bf16 rr", "gemm 4096x4096x4096 fp32 rr", "gemm 4096x4096x4096 fp16 rc"};
  EXPECT_EQ(described, expected);
}

TEST(Suite, ParsesConfigAndDefaultsTheName) {
  const Suite s = parse_suite(
      R"({"problems": [{"family": "gemm", "M": 64, "N": 32, "K": 16, "dtype": "bf16", "layout": "cr",
                        "config": "gemm_mma"}]})",
      "dir/nightly.json");
  EXPECT_EQ(s.name, "nightly");
  ASSERT_EQ(s.problems.size(), 1u);
  EXPECT_EQ(s.problems[0].config, "gemm_mma");
  EXPECT_EQ(s.problems[0].problem.dims, (Bindings{{"M", 64}, {"N", 32}, {"K", 16}}));
  EXPECT_EQ(s.problems[0].problem.option("layout"), "cr");
}

void expect_error(const std::string& text, const std::string& fragment) {
  try {
    parse_suite(text, "s.json");
    ADD_FAILURE() << "no error for " << text;
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("s.json: ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos) << what;
  }
}

const std::string kOk = R"("family": "gemm", "M": 64, "N": 64, "K": 64, "dtype": "fp16", "layout": "rr")";

TEST(Suite, BadInputIsReportedWithItsPlace) {
  expect_error("{", "parse error");
  expect_error("[]", "must be a JSON object");
  expect_error(R"({"problems": []})", "non-empty array");
  expect_error(R"({"problem": [{)" + kOk + "}]}", "unknown key \"problem\"");
  expect_error(R"({"name": 3, "problems": [{)" + kOk + "}]}", "\"name\" must be a string");
  expect_error(R"({"problems": [{)" + kOk + R"(}, {"family": "gemm", "M": 64, "N": 64, "K": 64, "layout": "rr"}]})",
               "problems[1]: \"dtype\" is missing");
  expect_error(R"({"problems": [{)" + kOk + R"(, "KK": 5}]})", "problems[0]: gemm has no dimension 'KK'");
  expect_error(R"({"problems": [{)" + kOk + R"(, "lda": 5}]})", "gemm has no dimension 'lda'");  // a context name
  expect_error(R"({"problems": [{"family": "gemm", "M": 64, "N": 64, "K": 64, "dtype": "fp16", "layout": "rx"}]})",
               "unknown layout 'rx'");
  expect_error(R"({"problems": [{"family": "gemm", "M": 64, "N": 64, "K": 64, "dtype": "fp16", "layout": 3}]})",
               "\"layout\" must be a string");
  expect_error(R"({"problems": [{"family": "gemm", "M": 64, "N": "64", "K": 64, "dtype": "fp16", "layout": "rr"}]})",
               "\"N\" must be an integer");
  // K defaults to M (as `ktune gemm` does); M has no default.
  expect_error(R"({"problems": [{"family": "gemm", "N": 64, "K": 64, "dtype": "fp16", "layout": "rr"}]})",
               "missing M");
  expect_error(R"({"problems": [{"family": "gemm", "M": 64, "N": 64, "K": 64, "dtype": "fp4", "layout": "rr"}]})",
               "unknown dtype");
  expect_error(R"({"problems": [{"family": "conv", "M": 64, "dtype": "fp16", "layout": "rr"}]})", "conv");
  expect_error(R"({"problems": [{)" + kOk + R"(, "config": 7}]})", "\"config\" must be");
  expect_error(R"({"problems": [{)" + kOk + "}, {" + kOk + "}]}", "problems[1]: gemm 64x64x64 fp16 rr is listed twice");
}

TEST(Suite, OptionsDefaultFromTheFamily) {
  const Suite s = parse_suite(R"({"problems": [{"family": "gemm", "M": 8, "N": 8, "K": 8, "dtype": "bf16"}]})", "s.json");
  EXPECT_EQ(s.problems[0].problem.option("layout"), "rr");
}

TEST(Suite, MissingFileIsBadInput) { EXPECT_THROW(load_suite("/nonexistent/suite.json"), ConfigError); }

CandidateRecord timed(const std::string& source, double median_ms, double tflops, size_t n) {
  CandidateRecord rec;
  rec.source = source;
  rec.role = source == "cublas" ? Role::baseline : Role::candidate;
  rec.disposition = Disposition::passed;
  rec.time = TimeStats{n, median_ms, median_ms, median_ms, median_ms, 0, median_ms, median_ms};
  rec.tflops = tflops;
  return rec;
}

TEST(BenchMarkdown, RowsRatiosAndGeometricMean) {
  Suite suite;
  suite.name = "default";
  RunInfo info;
  info.device.name = "NVIDIA H100 80GB HBM3";
  info.device.cc_major = 9;
  info.device.sm_count = 132;
  info.command = "ktune bench suites/default.json";

  std::vector<ProblemResult> results(2);
  results[0].problem = Problem{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
  results[0].records = {timed("cublas", 0.2, 687.2, 100), timed("ktune", 0.25, 549.8, 100)};
  results[0].records[1].params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}};
  results[1].problem = Problem{"gemm", {{"M", 2048}, {"N", 2048}, {"K", 2048}}, "fp16", {{"layout", "rr"}}};
  results[1].records = {timed("cublas", 0.1, 171.8, 100), timed("ktune", 0.05, 343.6, 100)};

  const std::string md = bench_markdown(suite, info, results);
  EXPECT_EQ(md.rfind("## ktune bench: default\n", 0), 0u) << md;
  EXPECT_NE(md.find("NVIDIA H100 80GB HBM3 (sm_90a, 132 SMs"), std::string::npos) << md;
  // GPU "—": these records carry no NVML readings.
  EXPECT_NE(md.find("| gemm 4096x4096x4096 fp16 rr | cuBLAS | 0.2500 | 0.2000 | 549.8 TFLOPS | 687.2 TFLOPS | 0.800× | — | 100 / 100 | — | "
                    "`BLOCK_M=128 BLOCK_N=256` |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 2.000× |"), std::string::npos) << md;
  // sqrt(0.8 * 2) = 1.265
  EXPECT_NE(md.find("**1.265×** over 2 problems"), std::string::npos) << md;

  results[1].records[1].disposition = Disposition::incorrect;
  results[1].records[1].reason = "max abs error 0.5 | row 3";
  const std::string failed = bench_markdown(suite, info, results);
  EXPECT_NE(failed.find("**incorrect**: max abs error 0.5 \\| row 3"), std::string::npos) << failed;
  EXPECT_NE(failed.find("**0.800×** over 1 problem."), std::string::npos) << failed;
}

// `bench --configs-from` names a results file: a missing one is bad input, said before any GPU
// work (so here, without a GPU, it is exit 2, not the no-GPU exit 3).
TEST(BenchCommand, ConfigsFromAMissingFileIsBadInput) {
  const std::string cmd = std::string(KTUNE_BINARY) + " bench " KTUNE_SOURCE_DIR
                          "/suites/fidelity.json --configs-from /nonexistent/bench.json 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_NE(out.find("--configs-from /nonexistent/bench.json: no such file"), std::string::npos) << out;
}

}  // namespace
}  // namespace ktune
