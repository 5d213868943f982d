// The runtime library's offline half: `ktune export --bundle` writes what an application needs
// (the table, configs and kernels, a cubin per row for the GPU it was tuned on, a declared
// family's folder), bundle.json reads back, a row ktune cannot place is left out with a note and
// exit 1; and `cmake --install` gives a package that examples/app finds with find_package(ktune),
// builds against and links, whose binary says what is missing on a machine with no GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "compile/embedded.hpp"
#include "families/family.hpp"
#include "runtime/bundle.hpp"
#include "run_ktune.hpp"
#include "space/enumerate.hpp"
#include "store/cache.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;
using test::run_command;
using test::run_ktune;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("ktune_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A cache entry as tuning on an H100 would write it: the first valid candidate of the family's
// first config (or `config_file`) for `problem`.
CacheEntry tuned_on_h100(const Problem& problem, const fs::path& config_file = {}) {
  const KernelFamily& family = find_family(problem.family);
  const SweepConfig config = config_file.empty()
                                 ? parse_family_config(family, *find_embedded(family.default_configs().at(0)),
                                                       std::string(family.default_configs().at(0)))
                                 : load_family_config(family, config_file);
  const std::vector<Candidate> all =
      enumerate(config, family.context(problem, arch_facts_offline("sm_90a")), family.placeholders(problem)).candidates;
  const auto valid = std::find_if(all.begin(), all.end(), [](const Candidate& c) { return c.valid; });
  EXPECT_NE(valid, all.end());
  CacheEntry e;
  e.key.family = problem.family;
  e.key.config_name = config.name;
  e.key.dtype = problem.dtype;
  e.key.options = problem.options;
  e.key.dims = problem.dims;
  e.key.gpu_name = "NVIDIA H100 80GB HBM3";
  e.key.cc_major = 9;
  e.key.cc_minor = 0;
  e.winner_config = config.name;
  e.kernel_name = valid->kernel_name;
  e.params = valid->params;
  e.launch = valid->launch;
  e.median_ms = 0.1;
  return e;
}

TEST(RuntimeBundle, ExportWritesWhatTheRuntimeLaunchesFrom) {
  const fs::path dir = scratch("bundle");
  const fs::path example = fs::path(KTUNE_SOURCE_DIR) / "examples" / "vector_add";
  declare_families_in(example);
  BestConfigCache cache(dir / "cache" / "best_configs.json");
  cache.put(tuned_on_h100({"add", {{"N", 1 << 20}}, "fp16", {}}));
  cache.put(tuned_on_h100({"vector_add", {{"N", 1 << 20}}, "fp32", {}}, example / "vector_add.sweep.json"));
  const std::string flags = " --cache-dir " + (dir / "cache").string() + " --family-path " + example.string();

  const test::Ran ran = run_ktune("export --bundle " + (dir / "bundle").string() + flags);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_NE(ran.output.find("2 rows, 2 cubins"), std::string::npos) << ran.output;
  const std::vector<BundleRow> rows = read_bundle(dir / "bundle");
  ASSERT_EQ(rows.size(), 2u);
  for (const BundleRow& r : rows) {
    EXPECT_EQ(r.row.arch, "sm_90a");
    ASSERT_EQ(r.cubins.count("sm_90a"), 1u) << r.row.family;
    EXPECT_GT(fs::file_size(dir / "bundle" / r.cubins.at("sm_90a").file), 1000u);
    EXPECT_FALSE(r.cubins.at("sm_90a").lowered_name.empty());
    EXPECT_TRUE(fs::exists(dir / "bundle" / r.config_file)) << r.config_file;
  }
  // The built-in row: its config with the kernel and ktune's headers beside it, for NVRTC.
  EXPECT_TRUE(fs::exists(dir / "bundle" / "configs" / "kernels" / "add.cu"));
  EXPECT_TRUE(fs::exists(dir / "bundle" / "configs" / "kernels" / "elementwise.cuh"));
  // The declared row: the declaration's folder, so the runtime declares the family itself.
  const auto declared = std::find_if(rows.begin(), rows.end(), [](const BundleRow& r) { return r.row.family == "vector_add"; });
  ASSERT_NE(declared, rows.end());
  EXPECT_TRUE(fs::exists(dir / "bundle" / declared->declaration)) << declared->declaration;

  // A row of a family this ktune does not know (its declaration not given): left out, said, exit 1.
  const test::Ran partial = run_ktune("export --bundle " + (dir / "partial").string() + " --cache-dir " +
                                      (dir / "cache").string());
  EXPECT_EQ(partial.exit_code, 1) << partial.output;
  EXPECT_NE(partial.output.find("vector_add"), std::string::npos) << partial.output;
  EXPECT_NE(partial.output.find("left out"), std::string::npos) << partial.output;
  EXPECT_EQ(read_bundle(dir / "partial").size(), 1u);
  EXPECT_EQ(run_ktune("export --bundle " + (dir / "b2").string() + " --out x.json" + flags).exit_code, 2);
  fs::remove_all(dir);
}

// What the runtime hands a kernel is what the kernel declares: for every family that can be
// launched outside ktune, the argument list built from callers' buffers has one entry per
// parameter the family's contract names (compile/parameter_check.hpp), pointers where they were
// given; a missing operand is an error naming it. A family that cannot be launched says so.
TEST(RuntimeBundle, ArgumentsFromCallersBuffersMatchEachFamilysParameters) {
  declare_families_in(fs::path(KTUNE_SOURCE_DIR) / "examples" / "vector_add");
  const std::vector<std::pair<Problem, std::string>> cases = {
      {{"gemm", {{"M", 256}, {"N", 512}, {"K", 128}}, "fp16", {{"layout", "rr"}}}, "configs/gemm_mma.json"},
      {{"gemm", {{"M", 256}, {"N", 512}, {"K", 128}}, "fp8", {{"layout", "rc"}}}, "configs/gemm_mma.json"},
      {{"gemm_nvfp4", {{"M", 4}, {"N", 512}, {"K", 256}}, "bf16", {}}, "configs/gemm_nvfp4.json"},
      {{"add", {{"N", 1000}}, "bf16", {}}, "configs/add.json"},
      {{"softmax", {{"rows", 64}, {"cols", 1000}}, "fp16", {}}, "configs/softmax.json"},
      {{"layernorm", {{"rows", 64}, {"cols", 1000}}, "bf16", {{"eps", "1e-5"}}}, "configs/layernorm.json"},
      {{"rmsnorm", {{"rows", 64}, {"cols", 1000}}, "fp16", {{"eps", "1e-6"}}}, "configs/rmsnorm.json"},
      {{"vector_add", {{"N", 1000}}, "fp32", {}}, ""}};
  for (const auto& [problem, config_path] : cases) {
    SCOPED_TRACE(describe(problem));
    const KernelFamily& family = find_family(problem.family);
    const SweepConfig config = config_path.empty()
                                   ? load_family_config(family, fs::path(std::string(family.default_configs().at(0))))
                                   : parse_family_config(family, *find_embedded(config_path), config_path);
    std::map<std::string, void*> operands;
    uintptr_t next = 0x1000;
    for (const LaunchOperand& op : family.launch_operands(problem)) {
      EXPECT_GT(op.bytes, 0) << op.name;
      operands[op.name] = reinterpret_cast<void*>(next += 0x1000);
    }
    KernelArguments args;
    family.kernel_arguments(problem, operands, {}, args);
    const std::vector<KernelParam> params = family.kernel_parameters(problem, config);
    EXPECT_EQ(args.size(), params.size());
    for (size_t i = 0; i < std::min(args.size(), params.size()); ++i) {
      if (!operands.count(params[i].what)) continue;  // a scalar, or a pointer the family passes as null
      void* value = nullptr;
      std::memcpy(&value, args.list()[i], sizeof value);
      EXPECT_EQ(value, operands.at(params[i].what)) << "parameter " << i << " (" << params[i].what << ")";
    }
    operands.erase(operands.begin());
    KernelArguments missing;
    EXPECT_THROW(family.kernel_arguments(problem, operands, {}, missing), Error);
  }
  const Problem backward{"layernorm_backward", {{"rows", 64}, {"cols", 1000}}, "fp16", {}};
  EXPECT_TRUE(find_family("layernorm_backward").launch_operands(backward).empty());
  KernelArguments none;
  EXPECT_THROW(find_family("layernorm_backward").kernel_arguments(backward, {}, {}, none), Error);
}

TEST(RuntimeBundle, MissingOrMalformedBundleIsAConfigError) {
  const fs::path dir = scratch("bad_bundle");
  EXPECT_THROW(read_bundle(dir), ConfigError);
  write_file_atomic(dir / "bundle.json", R"({"schema": 1, "rows": [{"family": "add"}]})");
  EXPECT_THROW(read_bundle(dir), ConfigError);
  fs::remove_all(dir);
}

// What a user of the runtime does: install ktune into a prefix, build an application against it
// with find_package(ktune), link. Run on a machine with no GPU, the application says so (exit 2).
TEST(RuntimeBundle, InstalledPackageBuildsTheExampleApp) {
  if (run_command("command -v cmake").exit_code != 0) GTEST_SKIP() << "no cmake";
  const fs::path dir = scratch("install");
  const test::Ran install = run_command("cmake --install '" KTUNE_BUILD_DIR "' --prefix '" + (dir / "prefix").string() + "'");
  ASSERT_EQ(install.exit_code, 0) << install.output;
  for (const char* f : {"bin/ktune", "include/ktune/runtime.hpp", "lib/cmake/ktune/ktuneConfig.cmake",
                        "lib/cmake/ktune/ktuneTargets.cmake", "share/ktune/kernels/gemm_wgmma.cu", "share/ktune/configs/gemm_wgmma.json"})
    EXPECT_TRUE(fs::exists(dir / "prefix" / f)) << f;
  const fs::path app = fs::path(KTUNE_SOURCE_DIR) / "examples" / "app";
  const test::Ran configure = run_command("cmake -S '" + app.string() + "' -B '" + (dir / "app").string() +
                                          "' -DCMAKE_PREFIX_PATH='" + (dir / "prefix").string() + "'");
  ASSERT_EQ(configure.exit_code, 0) << configure.output;
  const test::Ran build = run_command("cmake --build '" + (dir / "app").string() + "'");
  ASSERT_EQ(build.exit_code, 0) << build.output;
  ASSERT_TRUE(fs::exists(dir / "app" / "ktune_app"));
  // The installed library, found through the package (not the build tree): ldd names its path.
  const test::Ran ldd = run_command("ldd '" + (dir / "app" / "ktune_app").string() + "'");
  EXPECT_NE(ldd.output.find((dir / "prefix").string()), std::string::npos) << ldd.output;

  const test::Ran usage = run_command("'" + (dir / "app" / "ktune_app").string() + "'");
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
  const test::Ran no_bundle = run_command("'" + (dir / "app" / "ktune_app").string() + "' '" + (dir / "none").string() + "'");
  EXPECT_EQ(no_bundle.exit_code, 2) << no_bundle.output;
  EXPECT_NE(no_bundle.output.find("no bundle here"), std::string::npos) << no_bundle.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
