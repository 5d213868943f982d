// The command line's family-neutral surface, run as a user runs it: the top-level help lists every
// family with its built-in configs, and `verify FAMILY ... --set` checks its input for any family
// before it looks for a GPU; the cache-only commands (--no-tune, lookup, export, merge) answer
// without one.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "families/family.hpp"
#include "store/cache.hpp"
#include "store/dispatch_table.hpp"
#include "util/fs.hpp"
#include "run_ktune.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {
namespace {

using test::Ran;
using test::run_ktune;

class CliHelp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(KTUNE_BINARY)) GTEST_SKIP() << KTUNE_BINARY << " is not built";
  }
};

TEST_F(CliHelp, TopLevelHelpListsEveryFamilyWithItsConfigs) {
  const Ran help = run_ktune("--help");
  EXPECT_EQ(help.exit_code, 0);
  const size_t footer = help.output.find("Families and their built-in sweep configs");
  ASSERT_NE(footer, std::string::npos) << help.output;
  for (const KernelFamily* f : all_families()) {
    const std::string name(f->name());
    const size_t line = help.output.find("\n  " + name + " ", footer);
    ASSERT_NE(line, std::string::npos) << name << " has no line in\n" << help.output;
    const std::string text = help.output.substr(line + 1, help.output.find('\n', line + 1) - line - 1);
    for (std::string_view path : f->default_configs()) {
      std::string stem(path.substr(path.rfind('/') + 1));
      stem = stem.substr(0, stem.rfind('.'));
      EXPECT_NE(text.find(stem), std::string::npos) << name << "'s line lacks " << stem << ": " << text;
    }
  }
  EXPECT_EQ(help.output.find("cuBLAS)"), std::string::npos) << "the summary still promises cuBLAS for every family";
}

TEST_F(CliHelp, VerifyOneConfigurationTakesAnyFamilyAndChecksItsSettingsFirst) {
  // Settings that name no config's parameters: a clear message naming the family's configs, exit 2,
  // with no GPU needed to say so.
  const Ran wrong = run_ktune("verify softmax --rows 8 --cols 8 --set FOO=1");
  EXPECT_EQ(wrong.exit_code, 2) << wrong.output;
  EXPECT_NE(wrong.output.find("softmax_looped: BLOCK, UNROLL, VEC_BYTES"), std::string::npos) << wrong.output;
  const Ran not_integer = run_ktune("verify layernorm --rows 8 --cols 8 --set VEC_BYTES=wide");
  EXPECT_EQ(not_integer.exit_code, 2) << not_integer.output;
  EXPECT_NE(not_integer.output.find("is not an integer"), std::string::npos) << not_integer.output;
  const Ran no_set = run_ktune("verify add --n 1000");
  EXPECT_EQ(no_set.exit_code, 2) << no_set.output;
  EXPECT_NE(no_set.output.find("--set"), std::string::npos) << no_set.output;
}

TEST_F(CliHelp, CompileFlagsReachTheFamilyBeforeOrAfterItsName) {
  // An unknown target fails before anything compiles, so where --arch lands shows without NVRTC.
  for (const char* args : {"compile --arch sm_1 add --n 1000", "compile add --n 1000 --arch sm_1"}) {
    const Ran r = run_ktune(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("unknown --arch 'sm_1'"), std::string::npos) << args << "\n" << r.output;
  }
}

TEST_F(CliHelp, CompileSampleCompilesASpreadAndCountsTheRest) {
  // add's sweep at n = 1000 has hundreds of valid candidates; --sample 3 compiles its value
  // picks (every value of every tunable, more than 3) and counts the others as left out.
  const std::string dir = (std::filesystem::temp_directory_path() / "ktune-cli-sample-cache").string();
  const Ran r = run_ktune("compile add --n 1000 --arch sm_80 --sample 3 --no-progress --cache-dir " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m,
                                std::regex(R"(total: (\d+) compiled, \d+ invalid, 0 failed to compile, (\d+) valid left)")))
      << r.output;
  const int compiled = std::stoi(m[1]), left_out = std::stoi(m[2]);
  EXPECT_GE(compiled, 3);
  EXPECT_GT(left_out, 10 * compiled);
}

TEST_F(CliHelp, CompileQuickTouchesEveryTunableValueWithFewerKernelsThanASample) {
  // add's sweep over its own problems: --quick compiles each value of each tunable once per
  // config and one candidate of every problem; -v lists what compiled.
  const std::string dir = (std::filesystem::temp_directory_path() / "ktune-cli-quick-cache").string();
  const Ran quick = run_ktune("compile add --arch sm_80 --quick -v --no-progress --cache-dir " + dir);
  ASSERT_EQ(quick.exit_code, 0) << quick.output;
  const Ran sample = run_ktune("compile add --arch sm_80 --sample 3 --no-progress --cache-dir " + dir);
  ASSERT_EQ(sample.exit_code, 0) << sample.output;
  const std::regex total(R"(total: (\d+) compiled)");
  std::smatch mq, ms;
  ASSERT_TRUE(std::regex_search(quick.output, mq, total)) << quick.output;
  ASSERT_TRUE(std::regex_search(sample.output, ms, total)) << sample.output;
  EXPECT_LT(std::stoi(mq[1]), std::stoi(ms[1]));
  // Every problem compiled something: no "0 compiled" line.
  EXPECT_EQ(quick.output.find("  0 compiled"), std::string::npos) << quick.output;
  // Every value each tunable takes in the embedded config appears among the compiled lines.
  const nlohmann::json config = nlohmann::json::parse(read_file(std::string(KTUNE_SOURCE_DIR) + "/configs/add.json"));
  for (const auto& [name, values] : config.at("parameters").items())
    for (const auto& v : values) {
      // Short names: the compiled lines abbreviate tunables (short_params); look for "=V " after
      // a compiled line's name column instead of the exact key.
      const std::string value = "=" + v.dump() + " ";
      bool found = false;
      std::istringstream lines(quick.output);
      for (std::string line; std::getline(lines, line);)
        if (line.find("  compiled  ") == 0 && line.find(value) != std::string::npos) found = true;
      EXPECT_TRUE(found) << name << value << "\n" << quick.output;
    }
}

TEST_F(CliHelp, CompilePartsSplitTheProblemsWithoutOverlapAndRefuseABadPart) {
  const std::string dir = (std::filesystem::temp_directory_path() / "ktune-cli-part-cache").string();
  std::multiset<std::string> seen;
  std::set<std::string> whole;
  auto headers = [](const std::string& output) {
    std::vector<std::string> out;
    std::istringstream lines(output);
    for (std::string line; std::getline(lines, line);)
      if (line.find(" for sm_80") != std::string::npos) out.push_back(line);
    return out;
  };
  const Ran all = run_ktune("compile add --arch sm_80 --quick --no-progress --cache-dir " + dir);
  ASSERT_EQ(all.exit_code, 0) << all.output;
  for (const std::string& h : headers(all.output)) whole.insert(h);
  ASSERT_GE(whole.size(), 3u) << all.output;
  for (const char* part : {"1/3", "2/3", "3/3"}) {
    const Ran r = run_ktune(std::string("compile add --arch sm_80 --quick --no-progress --part ") + part +
                            " --cache-dir " + dir);
    ASSERT_EQ(r.exit_code, 0) << part << "\n" << r.output;
    for (const std::string& h : headers(r.output)) seen.insert(h);
  }
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()), whole);
  EXPECT_EQ(seen.size(), whole.size());  // no problem in two parts
  for (const char* bad : {"0/3", "4/3", "1/0", "two", "1/3x"}) {
    const Ran r = run_ktune(std::string("compile add --arch sm_80 --part ") + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--part"), std::string::npos) << bad << "\n" << r.output;
  }
}

TEST_F(CliHelp, SearchAndGpuFlagsAreOfferedAndABadGpuListNeedsNoGpuToRefuse) {
  const Ran gemm = run_ktune("gemm --help");
  for (const char* flag : {"--exhaustive", "--max-candidates", "--budget"})
    EXPECT_NE(gemm.output.find(flag), std::string::npos) << flag << "\n" << gemm.output;
  EXPECT_NE(gemm.output.find("--shard"), std::string::npos) << gemm.output;
  const Ran bad_shard = run_ktune("gemm --m 64 --shard 2/2");
  EXPECT_EQ(bad_shard.exit_code, 2) << bad_shard.output;
  const Ran bench = run_ktune("bench --help");
  EXPECT_NE(bench.output.find("--gpus"), std::string::npos) << bench.output;
  const Ran bad = run_ktune("bench " + std::string(KTUNE_SOURCE_DIR) + "/suites/default.json --gpus 0,x");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("'x' is not a GPU index"), std::string::npos) << bad.output;
}

TEST_F(CliHelp, ADimensionBelowOneIsRefusedPlainly) {
  const Ran r = run_ktune("softmax --rows 0 --cols 5");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("--rows: must be a whole number >= 1 (got 0)"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("179769"), std::string::npos) << "the message spells out the largest double: " << r.output;
}

// The cache-only commands of tuning at scale, end to end on a cache written here: --no-tune and
// lookup answer from the nearest tuned shape and say how far, export writes a table that reads
// back, merge of a cache with itself keeps one entry.
TEST_F(CliHelp, NoTuneLookupExportAndMergeAnswerFromTheCache) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ktune_cli_scale_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CacheEntry e;
  e.key.family = "gemm";
  e.key.config_name = "gemm_wgmma";
  e.key.dtype = "fp16";
  e.key.options = {{"layout", "rr"}};
  e.key.dims = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  e.key.gpu_name = "NVIDIA H100 80GB HBM3";
  e.winner_config = "gemm_wgmma";
  e.kernel_name = "ktune_gemm_wgmma<__half, 128, 256>";
  e.params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}};
  e.median_ms = 0.2;
  BestConfigCache(dir / "best_configs.json").put(e);
  const std::string cache = " --cache-dir " + dir.string();

  const Ran near = run_ktune("gemm --m 4000 --n 4096 --k 4096 --no-tune" + cache);
  EXPECT_EQ(near.exit_code, 0) << near.output;
  EXPECT_NE(near.output.find("the nearest tuned shape is gemm 4096x4096x4096 fp16 rr (distance 0.034"),
            std::string::npos)
      << near.output;
  const Ran exact = run_ktune("gemm --m 4096 --no-tune" + cache);
  EXPECT_EQ(exact.exit_code, 0) << exact.output;
  EXPECT_NE(exact.output.find("tuned on NVIDIA H100 80GB HBM3"), std::string::npos) << exact.output;
  EXPECT_EQ(run_ktune("gemm --m 4096 --dtype bf16 --no-tune" + cache).exit_code, 1);

  const Ran look = run_ktune("lookup gemm --dims M=4000,N=4096,K=4096 --options layout=rr" + cache);
  EXPECT_EQ(look.exit_code, 0) << look.output;
  EXPECT_NE(look.output.find("\"exact\": false"), std::string::npos) << look.output;
  EXPECT_EQ(run_ktune("lookup gemm --dims M=4000,N=x --options layout=rr" + cache).exit_code, 2);

  const Ran exported = run_ktune("export --format json --out " + (dir / "table.json").string() + cache);
  ASSERT_EQ(exported.exit_code, 0) << exported.output;
  const std::vector<DispatchRow> table = parse_dispatch_json(nlohmann::json::parse(read_file(dir / "table.json")));
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].kernel_name, e.kernel_name);

  const Ran merged = run_ktune("merge --out " + (dir / "merged.json").string() + " " +
                               (dir / "best_configs.json").string() + " " + (dir / "best_configs.json").string());
  EXPECT_EQ(merged.exit_code, 0) << merged.output;
  EXPECT_EQ(BestConfigCache(dir / "merged.json").list().size(), 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ktune
