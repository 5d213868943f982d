// Sweep-config loading: the happy path, and every class of bad input rejected at load time with
// origin:line:col pointing at the offending key, value or character.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "space/sweep_config.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

const std::vector<std::string> context_names = {"M", "N", "K", "elem_bytes", "max_smem"};
const std::vector<std::string> placeholder_names = {"ELEMENT"};

const std::string toy = R"json({
  "name": "toy_gemm",
  "family": "gemm",
  "description": "a small config for tests",
  "notes": ["ignored", 1],
  "kernel": "kernels/toy.cu",
  "kernel_name": "toy<{ELEMENT}, {BLOCK_M}, {BLOCK_N}, {STAGES}>",
  "min_arch": 80,
  "parameters": {
    "BLOCK_M": [64, 128],
    "BLOCK_N": [32, 64, 128],
    "STAGES": [2, 3]
  },
  "derived": {
    "TILE_BYTES": "(BLOCK_M + BLOCK_N) * 32 * elem_bytes",
    "SMEM_BYTES": "STAGES * TILE_BYTES"
  },
  "constraints": [
    "SMEM_BYTES <= max_smem",
    "BLOCK_M >= BLOCK_N"
  ],
  "launch": {
    "grid": ["cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)", 1, "1"],
    "block": ["128", "1", "1"],
    "shared_bytes": "SMEM_BYTES"
  },
  "problems": [{"M": 4096, "N": 4096, "K": 4096}, {"M": 128, "N": 6144, "K": 4096}],
  "dtypes": ["fp16", "bf16"],
  "layouts": ["rr", "cr"]
}
)json";

SweepConfig parse(const std::string& text) {
  return parse_sweep_config(text, "toy.json", context_names, placeholder_names, {});
}

// `text` with the first `from` replaced by `to`; fails the test if `from` is not there.
std::string edit(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: no '" << from << "' in the config";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// "toy.json:L:C: " for the byte `skip` bytes after the first `needle` in `text`, computed
// independently of the code under test.
std::string where(const std::string& text, const std::string& needle, size_t skip = 0) {
  size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << "test bug: no '" << needle << "' in the config";
  at += skip;
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < at; ++i)
    if (text[i] == '\n') ++line, line_start = i + 1;
  return "toy.json:" + std::to_string(line) + ":" + std::to_string(at - line_start + 1) + ": ";
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the config was accepted";
  return "";
}

// The error must start with `prefix` (origin:line:col) and contain every fragment.
void expect_error(const std::string& text, const std::string& prefix,
                  std::initializer_list<std::string> fragments) {
  std::string what = error_of(text);
  EXPECT_EQ(what.rfind(prefix, 0), 0u) << "expected prefix '" << prefix << "' in: " << what;
  for (const auto& f : fragments)
    EXPECT_NE(what.find(f), std::string::npos) << "expected '" << f << "' in: " << what;
}

TEST(SweepConfig, HappyPath) {
  SweepConfig c = parse(toy);
  EXPECT_EQ(c.name, "toy_gemm");
  EXPECT_EQ(c.family, "gemm");
  EXPECT_EQ(c.description, "a small config for tests");
  EXPECT_EQ(c.kernel_path, "kernels/toy.cu");
  EXPECT_EQ(c.base_dir, std::filesystem::path());
  EXPECT_EQ(c.kernel_name, "toy<{ELEMENT}, {BLOCK_M}, {BLOCK_N}, {STAGES}>");
  EXPECT_EQ(c.min_arch, 80);

  ASSERT_EQ(c.parameters.size(), 3u);  // file order, not alphabetical
  EXPECT_EQ(c.parameters[0].first, "BLOCK_M");
  EXPECT_EQ(c.parameters[0].second, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(c.parameters[1].first, "BLOCK_N");
  EXPECT_EQ(c.parameters[1].second, (std::vector<int64_t>{32, 64, 128}));
  EXPECT_EQ(c.parameters[2].first, "STAGES");

  ASSERT_EQ(c.derived.size(), 2u);  // file order: TILE_BYTES sorts after SMEM_BYTES
  EXPECT_EQ(c.derived[0].first, "TILE_BYTES");
  EXPECT_EQ(c.derived[1].first, "SMEM_BYTES");
  EXPECT_EQ(c.derived[1].second.text(), "STAGES * TILE_BYTES");

  ASSERT_EQ(c.constraints.size(), 2u);
  EXPECT_EQ(c.constraints[1].text(), "BLOCK_M >= BLOCK_N");

  EXPECT_EQ(c.grid[0].text(), "cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)");
  EXPECT_EQ(c.grid[0].eval({{"M", 4096}, {"N", 4096}, {"BLOCK_M", 128}, {"BLOCK_N", 64}}), 2048);
  EXPECT_EQ(c.grid[1].text(), "1");  // an integer is a constant expression
  EXPECT_EQ(c.block[0].eval({}), 128);
  EXPECT_EQ(c.shared_bytes.text(), "SMEM_BYTES");

  ASSERT_EQ(c.problems.size(), 2u);
  EXPECT_EQ(c.problems[1], (Bindings{{"K", 4096}, {"M", 128}, {"N", 6144}}));
  EXPECT_EQ(c.dtypes, (std::vector<std::string>{"fp16", "bf16"}));
  // "layouts" is the old spelling of the gemm option "layout".
  ASSERT_EQ(c.options.size(), 1u);
  EXPECT_EQ(c.options[0].first, "layout");
  EXPECT_EQ(c.options[0].second, (std::vector<std::string>{"rr", "cr"}));
}

TEST(SweepConfig, OptionsAreListsOfValuesByName) {
  std::string text = R"({"name": "m", "family": "gemm", "kernel": "k.cu",
    "kernel_name": "k<{X}>", "parameters": {"X": [1]},
    "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
    "options": {"layout": ["rc", "cc"]}})";
  SweepConfig c = parse(text);
  ASSERT_EQ(c.options.size(), 1u);
  EXPECT_EQ(c.options[0].second, (std::vector<std::string>{"rc", "cc"}));

  std::string both = text;
  both.replace(both.find("\"options\""), 0, R"("layouts": ["rr"], )");
  EXPECT_THROW(parse(both), ConfigError);
  std::string twice = R"({"name": "m", "family": "gemm", "kernel": "k.cu",
    "kernel_name": "k<{X}>", "parameters": {"X": [1]},
    "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]},
    "options": {"layout": ["rc", "rc"]}})";
  expect_error(twice, where(twice, "\"rc\"]"), {"options.layout: \"rc\" is listed twice"});
}

TEST(SweepConfig, OptionalKeysHaveDefaults) {
  std::string minimal = R"({"name": "m", "family": "gemm", "kernel": "k.cu",
    "kernel_name": "k<{X}>", "parameters": {"X": [1]},
    "launch": {"grid": [1, 1, 1], "block": [32, 1, 1]}})";
  SweepConfig c = parse(minimal);
  EXPECT_EQ(c.min_arch, 0);
  EXPECT_EQ(c.description, "");
  EXPECT_TRUE(c.derived.empty());
  EXPECT_TRUE(c.constraints.empty());
  EXPECT_EQ(c.shared_bytes.text(), "0");
  EXPECT_TRUE(c.problems.empty());
  EXPECT_TRUE(c.dtypes.empty());
  EXPECT_TRUE(c.options.empty());
  EXPECT_TRUE(c.exchanges.empty());
}

// min_arch and max_arch bound the SMs a config's kernels run on: the wgmma kernels say 90 and 90
// (Blackwell has no wgmma), and compile, tune and bench leave such a config out with why.
TEST(SweepConfig, ArchRangeSaysWhyAConfigIsLeftOut) {
  SweepConfig c = parse(toy);
  EXPECT_EQ(c.max_arch, 0);
  EXPECT_EQ(arch_mismatch(c, 80), "");
  EXPECT_EQ(arch_mismatch(c, 100), "");
  EXPECT_EQ(arch_mismatch(c, 75), "needs sm_80 or newer");
  c = parse(edit(toy, "\"min_arch\": 80", "\"min_arch\": 90, \"max_arch\": 90"));
  EXPECT_EQ(c.max_arch, 90);
  EXPECT_EQ(arch_mismatch(c, 90), "");
  EXPECT_EQ(arch_mismatch(c, 100), "runs on sm_90 only (instructions later SMs lack)");
  EXPECT_EQ(arch_mismatch(c, 89), "needs sm_90 or newer");
  c = parse(edit(toy, "\"min_arch\": 80", "\"min_arch\": 80, \"max_arch\": 90"));
  EXPECT_EQ(arch_mismatch(c, 120), "runs on sm_80 to sm_90 only (instructions later SMs lack)");
  std::string text = edit(toy, "\"min_arch\": 80", "\"min_arch\": 90, \"max_arch\": 80");
  expect_error(text, where(text, "\"max_arch\": 80", 12), {"max_arch 80 is below min_arch 90"});
}

TEST(SweepConfig, MalformedJsonGivesLineAndColumn) {
  // A missing comma: the error points at the start of the next key.
  std::string text = edit(toy, "\"gemm\",", "\"gemm\"");
  expect_error(text, where(text, "\"description\""),
               {"malformed JSON", "unexpected string literal"});
  text = edit(toy, "[64, 128]", "[64, 128,]");
  expect_error(text, where(text, "128,]", 4), {"malformed JSON"});
  expect_error("", "toy.json:1:1: ", {"malformed JSON"});
  expect_error("{\"name\": \"x\"", "toy.json:1:13: ", {"malformed JSON", "end of input"});
  // Valid JSON, but deeper than any config: an error, not a stack overflow.
  expect_error("{\"notes\": " + std::string(1000, '[') + std::string(1000, ']') + "}",
               "toy.json:1:523: ", {"nested more than 512 levels"});
}

TEST(SweepConfig, TopLevelShape) {
  expect_error("[1, 2]", "toy.json:1:1: ", {"JSON object"});
  expect_error(edit(toy, "  \"kernel\": \"kernels/toy.cu\",\n", ""),
               "toy.json:1:1: ", {"missing required key \"kernel\""});
  std::string text = edit(toy, "\"kernel\":", "\"kernal\":");
  expect_error(text, where(text, "\"kernal\""), {"unknown key \"kernal\"", "did you mean kernel?"});
  text = edit(toy, "\"family\": \"gemm\",", "\"family\": \"gemm\", \"name\": \"again\",");
  expect_error(text, where(text, "\"name\": \"again\""), {"duplicate key \"name\""});
}

TEST(SweepConfig, WrongTypes) {
  std::string text = edit(toy, "\"name\": \"toy_gemm\"", "\"name\": 5");
  expect_error(text, where(text, "5,"), {"\"name\" must be a string"});
  text = edit(toy, "\"toy_gemm\"", "\"toy gemm\"");
  expect_error(text, where(text, "\"toy gemm\""), {"letters, digits"});
  text = edit(toy, "\"family\": \"gemm\"", "\"family\": \"\"");
  expect_error(text, where(text, "\"\","), {"\"family\" must not be empty"});
  text = edit(toy, "\"min_arch\": 80", "\"min_arch\": \"80\"");
  expect_error(text, where(text, "\"80\""), {"min_arch", "not an integer"});
  text = edit(toy, "[\n    \"SMEM_BYTES <= max_smem\",\n    \"BLOCK_M >= BLOCK_N\"\n  ]",
              "{\"a\": 1}");
  expect_error(text, where(text, "{\"a\""), {"\"constraints\" must be a list"});
  text = edit(toy, "\"BLOCK_M >= BLOCK_N\"", "true");
  expect_error(text, where(text, "true"), {"constraint 2", "expression string or an integer"});
}

TEST(SweepConfig, ParameterValuesMustBeIntegers) {
  for (std::string bad : {"128.5", "\"128\"", "true", "null", "[128]"}) {
    SCOPED_TRACE(bad);
    std::string text = edit(toy, "[64, 128]", "[64, " + bad + "]");
    expect_error(text, where(text, bad + "]"), {"parameter BLOCK_M", bad, "not an integer"});
  }
  std::string text = edit(toy, "[64, 128]", "[64, 18446744073709551615]");
  expect_error(text, where(text, "18446744073709551615"), {"BLOCK_M", "does not fit in int64"});
  EXPECT_EQ(parse(edit(toy, "[64, 128]", "[64, -9223372036854775808]")).parameters[0].second[1],
            INT64_MIN);
}

// "exchanges": pairs of parameters the guided search may swap in one move.
TEST(SweepConfig, ExchangesArePairsOfParameters) {
  const std::string with = edit(toy, "\"launch\":", "\"exchanges\": [[\"BLOCK_M\", \"BLOCK_N\"]],\n  \"launch\":");
  const SweepConfig c = parse(with);
  ASSERT_EQ(c.exchanges.size(), 1u);
  EXPECT_EQ(c.exchanges[0], (std::pair<std::string, std::string>{"BLOCK_M", "BLOCK_N"}));
  std::string text = edit(with, "\"BLOCK_N\"]]", "\"TILE_BYTES\"]]");
  expect_error(text, where(text, "\"TILE_BYTES\"]]"), {"\"TILE_BYTES\"", "not a parameter"});
  text = edit(with, "\"BLOCK_N\"]]", "\"BLOCK_M\"]]");
  expect_error(text, where(text, "[\"BLOCK_M\", \"BLOCK_M\"]"), {"two different parameters"});
  text = edit(with, "[[\"BLOCK_M\", \"BLOCK_N\"]]", "[[\"BLOCK_M\"]]");
  expect_error(text, where(text, "[\"BLOCK_M\"]]"), {"a pair of parameter names"});
  text = edit(with, "[[\"BLOCK_M\", \"BLOCK_N\"]]", "{}");
  expect_error(text, where(text, "{}"), {"exchanges", "list"});
}

TEST(SweepConfig, ParameterLists) {
  std::string text = edit(toy, "[2, 3]", "[2, 3, 2]");
  expect_error(text, where(text, "2]"), {"parameter STAGES", "value 2 is listed twice"});
  text = edit(toy, "[2, 3]", "[]");
  expect_error(text, where(text, "[]"), {"parameter STAGES", "non-empty list"});
  text = edit(toy, "[2, 3]", "3");
  expect_error(text, where(text, "3\n"), {"parameter STAGES", "non-empty list"});
  text = edit(toy,
              "{\n    \"BLOCK_M\": [64, 128],\n    \"BLOCK_N\": [32, 64, 128],\n    "
              "\"STAGES\": [2, 3]\n  }",
              "{}");
  expect_error(text, where(text, "{}"), {"at least one parameter"});
}

TEST(SweepConfig, NamesMustBeFreshIdentifiers) {
  std::string text = edit(toy, "\"STAGES\": [2, 3]", "\"M\": [2, 3]");
  expect_error(text, where(text, "\"M\": [2"), {"parameter \"M\"", "context value"});
  text = edit(toy, "\"STAGES\": [2, 3]", "\"ELEMENT\": [2, 3]");
  expect_error(text, where(text, "\"ELEMENT\": ["), {"string placeholder"});
  text = edit(toy, "\"STAGES\": [2, 3]", "\"2STAGES\": [2, 3]");
  expect_error(text, where(text, "\"2STAGES\""), {"not an identifier"});
  text = edit(toy, "\"TILE_BYTES\":", "\"BLOCK_M\":");
  expect_error(text, where(text, "\"BLOCK_M\": \"("), {"derived value \"BLOCK_M\"", "parameter"});
}

TEST(SweepConfig, ExpressionSyntaxErrorPointsIntoTheString) {
  std::string text = edit(toy, "BLOCK_M >= BLOCK_N", "BLOCK_M => BLOCK_N");
  expect_error(text, where(text, "=> BLOCK_N"),
               {"syntax error in constraint 2", "\"BLOCK_M => BLOCK_N\"", "'=='"});
  text = edit(toy, "\"STAGES * TILE_BYTES\"", "\"STAGES * (TILE_BYTES\"");
  expect_error(text, where(text, "(TILE_BYTES\"", 11), {"derived SMEM_BYTES", "expected ')'"});
  text = edit(toy, "\"block\": [\"128\"", "\"block\": [\"128 +\"");
  expect_error(text, where(text, "128 +\"", 5), {"launch.block[0]", "end of expression"});
}

TEST(SweepConfig, UnknownNamesInExpressions) {
  std::string text = edit(toy, "BLOCK_M >= BLOCK_N", "BLOCK_M >= BLOCK_Q");
  expect_error(text, where(text, "BLOCK_Q"),
               {"constraint 2 uses unknown name \"BLOCK_Q\"", "did you mean BLOCK_", "max_smem"});
  text =
      edit(toy, "\"shared_bytes\": \"SMEM_BYTES\"", "\"shared_bytes\": \"SMEM_BYTES + smem_pad\"");
  expect_error(text, where(text, "smem_pad"), {"launch.shared_bytes", "\"smem_pad\""});
  // A derived value may only use earlier ones: they are evaluated in file order.
  text = edit(toy, "\"(BLOCK_M + BLOCK_N) * 32 * elem_bytes\"", "\"SMEM_BYTES / STAGES\"");
  expect_error(text, where(text, "SMEM_BYTES / STAGES"),
               {"derived TILE_BYTES uses \"SMEM_BYTES\"", "derived further down"});
  // A JSON escape before the name: the column still lands on the name in the file.
  text = edit(toy, "\"BLOCK_M >= BLOCK_N\"", "\"BLOCK_M >=\\tBLOCK_Q\"");
  expect_error(text, where(text, "BLOCK_Q"), {"unknown name \"BLOCK_Q\""});
}

TEST(SweepConfig, KernelNamePlaceholders) {
  std::string text = edit(toy, "{STAGES}>", "{STAGE}>");
  expect_error(text, where(text, "{STAGE}"),
               {"unknown placeholder {STAGE}", "did you mean STAGES?"});
  text = edit(toy, "{STAGES}>", "{STAGES>");
  expect_error(text, where(text, "{STAGES>"), {"kernel_name", "'{' without a matching '}'"});
  // Derived and context names are valid placeholders too.
  SweepConfig c = parse(edit(toy, "{STAGES}>", "{STAGES}, {SMEM_BYTES}, {M}>"));
  EXPECT_EQ(c.kernel_name, "toy<{ELEMENT}, {BLOCK_M}, {BLOCK_N}, {STAGES}, {SMEM_BYTES}, {M}>");
}

TEST(SweepConfig, ParameterWithoutEffectIsRejected) {
  std::string text = edit(toy, "\"STAGES\": [2, 3]", "\"STAGES\": [2, 3], \"SPLIT_K\": [1, 2]");
  expect_error(text, where(text, "\"SPLIT_K\""), {"parameter SPLIT_K has no effect"});
  // Used only by a constraint: still no effect on the kernel.
  text = edit(text, "\"BLOCK_M >= BLOCK_N\"", "\"BLOCK_M >= BLOCK_N * SPLIT_K\"");
  expect_error(text, where(text, "\"SPLIT_K\""), {"parameter SPLIT_K has no effect"});
  // Through a derived value that reaches kernel_name: an effect.
  EXPECT_NO_THROW(parse(edit(toy, "{STAGES}>", "{SMEM_BYTES}>")));
  // Through the launch geometry only (a kernel that reads blockDim): an effect.
  text = edit(toy, "\"STAGES\": [2, 3]", "\"STAGES\": [2, 3], \"WARPS\": [4, 8]");
  EXPECT_NO_THROW(parse(edit(text, "\"block\": [\"128\"", "\"block\": [\"WARPS * 32\"")));
}

TEST(SweepConfig, LaunchShape) {
  std::string text = edit(toy, "\"block\": [\"128\", \"1\", \"1\"]", "\"block\": [\"128\", \"1\"]");
  expect_error(text, where(text, "[\"128\", \"1\"]"), {"launch.block must be a list of 3"});
  text = edit(toy, "\"shared_bytes\":", "\"smem\":");
  expect_error(text, where(text, "\"smem\""), {"unknown key \"smem\""});
  text = edit(toy, "\"block\": [\"128\", \"1\", \"1\"],", "");
  expect_error(text, where(text, "{\n    \"grid\""), {"missing required key \"block\""});
  EXPECT_EQ(parse(edit(toy, ",\n    \"shared_bytes\": \"SMEM_BYTES\"", "")).shared_bytes.text(),
            "0");
}

TEST(SweepConfig, Problems) {
  std::string text = edit(toy, "\"K\": 4096}]", "\"K\": 0}]");
  expect_error(text, where(text, "0}]"), {"problem 2", "K = 0 must be positive"});
  text = edit(toy, "\"K\": 4096}]", "\"K\": -5}]");
  expect_error(text, where(text, "-5}]"), {"problem 2", "must be positive"});
  text = edit(toy, "\"K\": 4096}]", "\"K\": 4096.0}]");
  expect_error(text, where(text, "4096.0"), {"problem 2 K", "not an integer"});
  text = edit(toy, "\"K\": 4096}]", "\"k\": 4096}]");
  expect_error(text, where(text, "\"k\""), {"\"k\" is not a dimension", "did you mean K?"});
  text = edit(toy, "{\"M\": 128, \"N\": 6144, \"K\": 4096}", "[128, 6144, 4096]");
  expect_error(text, where(text, "[128, 6144"), {"problem 2 must be an object"});
}

TEST(SweepConfig, DtypesAndLayouts) {
  std::string text = edit(toy, "\"bf16\"]", "\"fp4\"]");
  expect_error(text, where(text, "\"fp4\""), {"dtypes: unknown \"fp4\"", "fp32, fp16, bf16, fp8, i8"});
  text = edit(toy, "\"bf16\"]", "\"fp16\"]");
  expect_error(text, where(text, "\"fp16\"]"), {"dtypes: \"fp16\" is listed twice"});
  text = edit(toy, "\"cr\"]", "\"rx\"]");
  expect_error(text, where(text, "\"rx\""), {"layouts: unknown \"rx\"", "rr, rc, cr, cc"});
  text = edit(toy, "\"cr\"]", "2]");
  expect_error(text, where(text, "2]"), {"layouts: 2 is not a string"});
}

TEST(SweepConfig, ByteOrderMarkIsSkipped) {
  std::string text = "\xEF\xBB\xBF" + edit(toy, "\"bf16\"]", "\"fp4\"]");
  expect_error(text, where(text, "\"fp4\""), {"dtypes: unknown \"fp4\""});
}

TEST(SweepConfig, FindPlaceholders) {
  auto found = find_placeholders("k<{A}, {B_2}>{A}");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "A");
  EXPECT_EQ(found[0].offset, 2u);
  EXPECT_EQ(found[1].name, "B_2");
  EXPECT_EQ(found[1].offset, 7u);
  EXPECT_EQ(found[2].offset, 13u);
  EXPECT_TRUE(find_placeholders("plain<1, 2>").empty());
  auto column_of = [](const char* tmpl) {
    try {
      find_placeholders(tmpl);
    } catch (const SyntaxError& e) {
      return e.column();
    }
    return 0;
  };
  EXPECT_EQ(column_of("k<{A>"), 3);
  EXPECT_EQ(column_of("k<{A{B}>"), 3);
  EXPECT_EQ(column_of("k<A}>"), 4);
  EXPECT_EQ(column_of("k<{}>"), 3);
  EXPECT_EQ(column_of("k<{A-B}>"), 3);
}

TEST(SweepConfig, LoadFromFile) {
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "ktune_sweep_config";
  std::filesystem::create_directories(dir);
  std::filesystem::path file = dir / "toy.json";
  std::ofstream(file) << toy;
  SweepConfig c = load_sweep_config(file, context_names, placeholder_names, {});
  EXPECT_EQ(c.base_dir, dir);
  EXPECT_EQ(c.parameters.size(), 3u);

  std::ofstream(file) << edit(toy, "\"bf16\"]", "\"fp4\"]");
  try {
    load_sweep_config(file, context_names, placeholder_names, {});
    ADD_FAILURE() << "accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ":", 0), 0u) << e.what();
  }
  std::filesystem::remove_all(dir);
  try {
    load_sweep_config(file, context_names, placeholder_names, {});
    ADD_FAILURE() << "accepted a missing file";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ": cannot open"), std::string::npos)
        << e.what();
  }
}

// The real config, written by another engineer; checked here once it exists.
TEST(SweepConfig, GemmMmaConfigLoads) {
  std::filesystem::path file = KTUNE_SOURCE_DIR "/configs/gemm_mma.json";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " does not exist yet";
  SweepConfig c = load_sweep_config(file,
                                    {"M", "N", "K", "elem_bytes", "a_row_major", "b_row_major",
                                     "lda", "ldb", "ldc", "arch", "max_smem", "sm_count", "l2_bytes",
                                          "splitk_partial_bytes", "splitk_counters", "block_scaled"},
                                    {"ELEMENT", "OUT_ELEMENT", "A_ROW_MAJOR", "B_ROW_MAJOR"}, {"A", "B", "C"});
  EXPECT_EQ(c.name, "gemm_mma");
  EXPECT_EQ(c.family, "gemm");
  EXPECT_FALSE(c.parameters.empty());
}

}  // namespace
}  // namespace ktune
