// Family declarations (docs/declared-families.md): a good one read into every field, every kind
// of mistake refused by the command line with exit 2 and the file:line:col of the mistake, and the
// best-config cache key following the declaration's text and its reference kernel.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <sys/wait.h>

#include "cli/common.hpp"
#include "compile/kernel_source.hpp"
#include "families/declaration.hpp"
#include "families/family.hpp"
#include "tune/tuner.hpp"
#include "util/fs.hpp"
#include "run_ktune.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const fs::path kExample = fs::path(KTUNE_SOURCE_DIR) / "examples" / "vector_add";

using test::Ran;
using test::run_ktune;

// A copy of the vector_add example in a fresh folder, its declaration edited by `edit`.
fs::path example_copy(const std::string& folder, const std::function<void(std::string&)>& edit = {}) {
  const fs::path dir = fs::temp_directory_path() / ("ktune-declaration-" + folder);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(kExample)) fs::copy_file(entry.path(), dir / entry.path().filename());
  std::string text = read_file(dir / "vector_add.family.json");
  if (edit) edit(text);
  std::ofstream(dir / "vector_add.family.json") << text;
  return dir;
}

void replace(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
}

TEST(Declaration, TheExampleIsReadIntoEveryField) {
  const Declaration d = load_declaration(kExample / "vector_add.family.json");
  EXPECT_EQ(d.name, "vector_add");
  ASSERT_EQ(d.dims.size(), 1u);
  EXPECT_EQ(d.dims[0].name, "N");
  ASSERT_EQ(d.dtypes.size(), 3u);
  EXPECT_EQ(d.dtypes[0], (std::pair<std::string, std::string>{"fp32", "float"}));
  ASSERT_EQ(d.buffers.size(), 3u);
  EXPECT_EQ(d.buffers[2].use, BufferUse::output);
  ASSERT_EQ(d.arguments.size(), 4u);
  EXPECT_EQ(d.arguments[3].scalar_type, "int64");
  EXPECT_TRUE(d.memory_bound);
  EXPECT_NE(d.reference.text.find("add_reference"), std::string::npos);
  ASSERT_EQ(d.configs.size(), 1u);
  EXPECT_TRUE(fs::path(d.configs[0]).is_absolute());
  EXPECT_EQ(argument_cpp_type(d, d.arguments[0], "bf16", false), "const __nv_bfloat16*");
  EXPECT_EQ(argument_cpp_type(d, d.arguments[2], "bf16", false), "__nv_bfloat16*");
  EXPECT_EQ(argument_cpp_type(d, d.arguments[2], "bf16", true), "float*");  // the reference writes fp32
  EXPECT_EQ(argument_cpp_type(d, d.arguments[3], "bf16", false), "long long");
}

TEST(Declaration, TheFamilyPathMakesItACommandAndListsIt) {
  const Ran families = run_ktune("--family-path " + kExample.string() + " families");
  EXPECT_EQ(families.exit_code, 0) << families.output;
  EXPECT_NE(families.output.find("vector_add: C = A + B"), std::string::npos) << families.output;
  const Ran help = run_ktune("--family-path " + kExample.string() + " vector_add --help");
  EXPECT_EQ(help.exit_code, 0) << help.output;
  EXPECT_NE(help.output.find("--n"), std::string::npos) << help.output;
  // KTUNE_FAMILY_PATH says the same.
  const Ran env = run_ktune("families", "KTUNE_FAMILY_PATH=" + kExample.string());
  EXPECT_NE(env.output.find("vector_add: C = A + B"), std::string::npos) << env.output;
}

struct Malformed {
  const char* name;
  std::function<void(std::string&)> edit;
  const char* message;  // a part of what the error says
};

TEST(Declaration, EveryMistakeIsExitTwoWithItsPosition) {
  const std::vector<Malformed> cases = {
      {"not_json", [](std::string& t) { replace(t, "\"family\": \"vector_add\",", "\"family\": \"vector_add\""); },
       "malformed JSON"},
      {"unknown_key", [](std::string& t) { replace(t, "\"summary\"", "\"sumary\""); }, "unknown key \"sumary\""},
      {"unknown_dtype", [](std::string& t) { replace(t, "\"fp32\": \"float\"", "\"fp64\": \"double\""); },
       "unknown dtype \"fp64\""},
      {"unknown_buffer_type", [](std::string& t) { replace(t, "\"name\": \"A\", \"type\": \"dtype\"", "\"name\": \"A\", \"type\": \"f64\""); },
       "unknown buffer type \"f64\""},
      {"unknown_dim_in_count", [](std::string& t) { replace(t, "\"name\": \"B\", \"type\": \"dtype\", \"count\": \"N\"", "\"name\": \"B\", \"type\": \"dtype\", \"count\": \"2 * M\""); },
       "unknown name \"M\""},
      {"argument_names_nothing", [](std::string& t) { replace(t, "\"arguments\": [\"A\", \"B\", \"C\"", "\"arguments\": [\"A\", \"X\", \"C\""); },
       "argument \"X\" names no buffer"},
      {"unknown_scalar_type", [](std::string& t) { replace(t, "\"N:int64\"", "\"N:long\""); }, "unknown scalar type \"long\""},
      {"unknown_role", [](std::string& t) { replace(t, "\"role\": \"output\"", "\"role\": \"result\""); }, "unknown role \"result\""},
      {"unknown_init", [](std::string& t) { replace(t, "\"init\": \"normal\"", "\"init\": \"gaussian\""); }, "unknown init \"gaussian\""},
      {"missing_reference_file", [](std::string& t) { replace(t, "\"add_reference.cu\"", "\"nowhere.cu\""); }, "no such file: nowhere.cu"},
      {"reference_placeholder", [](std::string& t) { replace(t, "add_reference<{ELEMENT}>", "add_reference<{ELEM}>"); },
       "unknown placeholder {ELEM}"},
      {"buffer_never_passed", [](std::string& t) { replace(t, "\"arguments\": [\"A\", \"B\", \"C\", \"N:int64\"]", "\"arguments\": [\"A\", \"C\", \"N:int64\"]"); },
       "buffer \"B\" is never passed"},
      {"no_output", [](std::string& t) { replace(t, "\"role\": \"output\"", "\"role\": \"input\""); }, "nothing would be checked"},
      {"duplicate_key", [](std::string& t) { replace(t, "\"summary\"", "\"family\": \"again\", \"summary\""); }, "duplicate key"},
      {"bad_dim_default", [](std::string& t) { replace(t, "{\"name\": \"N\", \"help\": \"elements\"}", "{\"name\": \"N\", \"default\": \"M\"}"); },
       "not another dimension"},
      {"builtin_name", [](std::string& t) { replace(t, "\"family\": \"vector_add\"", "\"family\": \"add\""); },
       "built-in family's name"},
  };
  for (const Malformed& c : cases) {
    const fs::path dir = example_copy(std::string("bad-") + c.name, c.edit);
    const Ran r = run_ktune("--family-path " + dir.string() + " families");
    EXPECT_EQ(r.exit_code, 2) << c.name << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.name << "\n" << r.output;
    if (std::string(c.name) != "builtin_name")  // that one is about the whole file
      EXPECT_TRUE(std::regex_search(r.output, std::regex("vector_add\\.family\\.json:\\d+:\\d+: ")))
          << c.name << " has no file:line:col\n" << r.output;
  }
}

TEST(Declaration, AReferenceThatDoesNotCompileIsExitTwoBeforeAnyGpuWork) {
  const fs::path dir = example_copy("bad-reference");
  std::ofstream(dir / "add_reference.cu", std::ios::app) << "\nthis is not C++\n";
  const Ran r = run_ktune("--family-path " + dir.string() + " compile vector_add --n 1000 --arch sm_80 --quick --no-progress"
                          " --cache-dir " + (dir / "cache").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("vector_add\\.family\\.json:\\d+:\\d+: the reference kernel")))
      << r.output;
  EXPECT_NE(r.output.find("add_reference.cu"), std::string::npos) << r.output;
}

TEST(Declaration, AKernelWhoseParametersDoNotMatchTheArgumentsFailsToCompileSayingWhich) {
  // The declaration passes N as a 32-bit int; add.cu takes a long long there.
  const fs::path dir = example_copy("narrow-n", [](std::string& t) { replace(t, "\"N:int64\"", "\"N:int32\""); });
  // The reference must agree with the declaration for the candidates to be reached.
  std::string ref = read_file(dir / "add_reference.cu");
  replace(ref, "float* c, long long n", "float* c, int n");
  std::ofstream(dir / "add_reference.cu") << ref;
  const Ran r = run_ktune("--family-path " + dir.string() + " compile vector_add --n 1000 --arch sm_80 --quick --no-progress"
                          " --cache-dir " + (dir / "cache").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("compile_failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("parameter 4 of ktune_add<"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("must be int (N)"), std::string::npos) << r.output;
}

// The cache key of a declared family's sweep follows the declaration and its reference.
TEST(Declaration, TheCacheKeyChangesWithTheDeclarationAndItsReference) {
  DeviceInfo device;
  device.name = "NVIDIA H100 80GB HBM3";
  device.cc_major = 9;
  device.sm_count = 132;
  auto key_of = [&](const std::string& folder, const std::string& family_name,
                    const std::function<void(const fs::path&)>& edit) {
    const fs::path dir = example_copy(folder, [&](std::string& t) {
      replace(t, "\"family\": \"vector_add\"", "\"family\": \"" + family_name + "\"");
    });
    if (edit) edit(dir);
    const KernelFamily& family = declare_family(dir / "vector_add.family.json");
    Sweep sweep;
    sweep.config = cli::embedded_config(std::string(family.default_configs().front()), family);
    sweep.source = resolve_kernel_source(sweep.config);
    const Problem p{family_name, {{"N", 1000}}, "fp16", {}};
    return sweeps_cache_key({&sweep}, p, device, TuneOptions{});
  };
  const CacheKey base = key_of("key-base", "keyed_add_a", {});
  const CacheKey declaration = key_of("key-declaration", "keyed_add_c", [](const fs::path& dir) {
    std::string t = read_file(dir / "vector_add.family.json");
    replace(t, "\"init\": \"normal\"", "\"init\": {\"dist\": \"uniform\", \"low\": -2, \"high\": 2}");
    std::ofstream(dir / "vector_add.family.json") << t;
  });
  EXPECT_NE(declaration.kernel_hash, base.kernel_hash);
  const CacheKey reference = key_of("key-reference", "keyed_add_d", [](const fs::path& dir) {
    std::ofstream(dir / "add_reference.cu", std::ios::app) << "\n// an edit\n";
  });
  EXPECT_NE(reference.kernel_hash, base.kernel_hash);
}

}  // namespace
}  // namespace ktune
