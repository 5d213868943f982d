// Bad input is refused before any GPU work, with exit 2 and a message a person can act on (issue
// 40's list): measurement flags out of range, a problem no GPU could hold, a compile that can
// compile nothing, files that are not results or share no problem with each other, a config given
// to the wrong family, a misspelt dimension, a kernel or family that does not exist. Each case
// runs on a machine without a GPU: exit 3 ("no GPU") would mean the check came too late.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "run_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::run_ktune;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-bad-input-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void expect_refused(const std::string& args, const std::string& says) {
  const test::Ran r = run_ktune(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
}

TEST(BadInput, MeasurementFlagsOutOfRangeAreRefusedBeforeLookingForAGpu) {
  const std::string p = "softmax --rows 64 --cols 64 ";
  expect_refused(p + "--jobs 0", "--jobs");
  expect_refused(p + "--timeout -5", "-5 must be above 0");
  expect_refused(p + "--noise -1", "-1 must be above 0");
  expect_refused(p + "--prune 0.5", "0.5 must be above 1");
  expect_refused(p + "--warmup-ms -1", "-1 must be at least 0");
  expect_refused(p + "--rtol -1", "-1 must be at least 0");
  expect_refused(p + "--top -3", "-3 must be at least 1");
  expect_refused(p + "--min-samples 0", "0 must be at least 1");
  expect_refused(p + "--min-time-ms 50 --max-time-ms 20", "--min-time-ms 50 is above --max-time-ms 20");
  expect_refused(p + "--noise lots", "lots is not a number");
  for (const char* flag : {"--max-candidates 0", "--budget 0"}) {
    const test::Ran r = run_ktune(p + flag);
    EXPECT_EQ(r.exit_code, 2) << flag << "\n" << r.output;
    EXPECT_EQ(r.output.find("179769313486231570814527"), std::string::npos) << r.output;  // no 300-digit limit
    EXPECT_TRUE(std::regex_search(r.output, std::regex("0 must be (at least 1|above 0)"))) << r.output;
  }
}

// Counts below their floor are refused with the floor. Unsigned flags took "-1" as their largest
// value without a word: `compare --min-samples -1` called every problem ambiguous and passed the
// gate, `compile --sample -1` compiled everything. `compare --blocks` below what the rank test
// needs to reach --alpha passed the gate the same way. The other flags here were refused before,
// but only later (after looking for a GPU) or with CLI11's 300-digit limit.
TEST(BadInput, CountsBelowTheirFloorAreRefused) {
  const fs::path dir = scratch("negative-counts");
  const std::string results = (dir / "r.json").string();
  std::ofstream(results) << "{}";  // the flags are checked before the files are read
  const std::string compare = "compare " + results + " " + results;
  expect_refused(compare + " --min-samples -1", "-1 must be at least 1");
  expect_refused(compare + " --blocks -1", "-1 must be at least 0");
  expect_refused(compare + " --blocks 3", "give 4 or more, or 0");
  expect_refused(compare + " --blocks 5 --alpha 0.001", "give 8 or more");
  expect_refused("compile add --arch sm_80 --sample -1 --cache-dir " + (dir / "cache").string(), "-1 must be at least 0");
  expect_refused("quantize --format nvfp4 --rows -4 --cols 16 --random 1 --out " + (dir / "q").string(),
                 "-4 must be at least 1");
  expect_refused("ceilings --warmup-ms -1", "-1 must be at least 0");
  expect_refused("verify softmax --rows 64 --cols 64 --set BLOCK=1 --rtol -1", "-1 must be at least 0");
  expect_refused("verify softmax --rows 64 --cols 64 --set BLOCK=1 --timeout 0", "0 must be above 0");
}

TEST(BadInput, AProblemNoGpuCouldHoldIsBadInput) {
  expect_refused("softmax --rows 99999999999 --cols 4096", "no GPU has that much");
  expect_refused("add --n 99999999999999", "no GPU has that much");
}

TEST(BadInput, CompileExitsTwoWhenNothingCanCompile) {
  const fs::path dir = scratch("compile");
  const std::string cache = " --no-progress --cache-dir " + (dir / "cache").string();
  // A constraint no candidate meets.
  std::string config = R"j({"name": "never", "family": "add", "kernel": "kernels/add.cu",
  "kernel_name": "ktune_add<{ELEMENT}, {VEC_BYTES}, 1, 256, 0, 0>",
  "parameters": {"VEC_BYTES": [4, 8]}, "constraints": ["VEC_BYTES > 64"],
  "launch": {"grid": ["cdiv(N, 256)", "1", "1"], "block": ["256", "1", "1"]}, "problems": [{"N": 1000}]})j";
  std::ofstream(dir / "never.json") << config;
  expect_refused("compile add --arch sm_80 --config " + (dir / "never.json").string() + cache,
                 "nothing compiles: every candidate was ruled out");
  // A dtype the family does not take: its one problem is skipped, and nothing is left.
  std::string fp8 = config;
  const std::string constraint = "\"constraints\": [\"VEC_BYTES > 64\"],";
  fp8.replace(fp8.find(constraint), constraint.size(), "\"dtypes\": [\"fp8\"],");
  std::ofstream(dir / "fp8.json") << fp8;
  expect_refused("compile add --arch sm_80 --config " + (dir / "fp8.json").string() + cache, "nothing compiles");
}

TEST(BadInput, CompareAndReportRecogniseFilesThatAreNotResultsOrShareNothing) {
  const fs::path dir = scratch("compare");
  std::ofstream(dir / "other.json") << R"({"name": "not results"})";
  const std::string gemm = std::string(KTUNE_SOURCE_DIR) + "/results/h100/gemm-4096-fp16-rr.json.gz";
  expect_refused("compare " + gemm + " " + (dir / "other.json").string(), "not a ktune results file");
  expect_refused("report " + (dir / "other.json").string() + " --out " + (dir / "r").string(), "not a ktune results file");
  const std::string softmax = std::string(KTUNE_SOURCE_DIR) + "/results/h100/bench-softmax-rows.json.gz";
  ASSERT_TRUE(fs::exists(softmax));
  expect_refused("compare " + gemm + " " + softmax, "share no problem");
}

TEST(BadInput, ConfigsNameTheirMistakes) {
  const fs::path dir = scratch("configs");
  // The GEMM config given to softmax.
  expect_refused("compile softmax --rows 64 --cols 64 --arch sm_80 --config " + std::string(KTUNE_SOURCE_DIR) +
                     "/configs/gemm_mma.json",
                 "this config is for family 'gemm', but this command tunes 'softmax'");
  // A misspelt dimension: told the family's dimensions, not the device facts.
  std::string add = R"j({"name": "typo", "family": "add", "kernel": "kernels/add.cu",
  "kernel_name": "ktune_add<{ELEMENT}, 16, 1, 256, 0, 0>", "parameters": {"X": [1]},
  "launch": {"grid": ["cdiv(N, 256 * X)", "1", "1"], "block": ["256", "1", "1"]}, "problems": [{"n": 1000}]})j";
  std::ofstream(dir / "typo.json") << add;
  const test::Ran typo = run_ktune("sweep " + (dir / "typo.json").string());
  EXPECT_EQ(typo.exit_code, 2) << typo.output;
  EXPECT_NE(typo.output.find("its dimensions: N"), std::string::npos) << typo.output;
  EXPECT_EQ(typo.output.find("max_smem"), std::string::npos) << typo.output;
  // A kernel file that does not exist, and a family that does not: both with file:line:col.
  std::string missing = add;
  missing.replace(missing.find("\"n\": 1000"), 9, "\"N\": 1000");
  missing.replace(missing.find("kernels/add.cu"), 14, "kernels/nowhere.cu");
  std::ofstream(dir / "missing.json") << missing;
  const test::Ran kernel = run_ktune("compile add --arch sm_80 --config " + (dir / "missing.json").string());
  EXPECT_EQ(kernel.exit_code, 2) << kernel.output;
  EXPECT_TRUE(std::regex_search(kernel.output, std::regex(R"(missing\.json:1:\d+: kernel 'kernels/nowhere\.cu')")))
      << kernel.output;
  std::string family = add;
  family.replace(family.find("\"family\": \"add\""), 15, "\"family\": \"rope\"");
  std::ofstream(dir / "family.json") << family;
  const test::Ran unknown = run_ktune("sweep " + (dir / "family.json").string());
  EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
  EXPECT_TRUE(std::regex_search(unknown.output, std::regex(R"(family\.json:1:\d+: unknown kernel family 'rope')")))
      << unknown.output;
}

}  // namespace
}  // namespace ktune
