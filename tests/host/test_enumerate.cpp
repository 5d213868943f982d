// Enumeration: order and count of candidates, derived values, first-failure constraint reasons,
// evaluation errors that invalidate one candidate without stopping the sweep, launch geometry,
// kernel-name substitution, make_candidate, and the real configs/gemm_mma.json.
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "compile/embedded.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// Constraint 1 rules out S = 40 and S = 60; constraint 2 divides by zero when A = 3 (and
// repeats "S != 40", so that (A=2, B=20) fails both and must report the first).
const std::string toy = R"json({
  "name": "toy",
  "family": "toy",
  "kernel": "k.cu",
  "kernel_name": "toy<{T}, {A}, {B}, {S}>",
  "parameters": {"A": [1, 2, 3], "B": [10, 20]},
  "derived": {"S": "A * B"},
  "constraints": ["S != 40 && S != 60", "N / (A - 3) < 100 && S != 40"],
  "launch": {"grid": ["cdiv(M, A)", "B", 1], "block": ["A * 32", 1, 1], "shared_bytes": "S * 4"}
})json";

const Bindings context = {{"M", 100}, {"N", 7}};
const std::map<std::string, std::string> placeholders = {{"T", "float"}};

SweepConfig parse(const std::string& text) {
  return parse_sweep_config(text, "toy.json", {"M", "N"}, {"T"}, {});
}

std::string edit(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test bug: no '" << from << "' in the config";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// (2, 20) and (3, 20) make S 40 and 60: counted, not kept. (3, 10) divides by zero: kept, invalid.
TEST(Enumerate, KeepsTheRestInOrderFirstParameterSlowest) {
  Enumeration e = enumerate(parse(toy), context, placeholders);
  const std::vector<Bindings> expected = {{{"A", 1}, {"B", 10}}, {{"A", 1}, {"B", 20}},
                                          {{"A", 2}, {"B", 10}}, {{"A", 3}, {"B", 10}}};
  ASSERT_EQ(e.candidates.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(e.candidates[i].params, expected[i]) << i;
  EXPECT_EQ(e.ruled_out, (std::map<std::string, int64_t>{{"constraint failed: S != 40 && S != 60", 2}}));
  EXPECT_EQ(e.ruled_out_total(), 2);
}

TEST(Enumerate, ValidCandidateIsFullyEvaluated) {
  auto candidates = enumerate(parse(toy), context, placeholders).candidates;
  const Candidate& c = candidates[1];  // A=1, B=20
  EXPECT_TRUE(c.valid) << c.invalid_reason;
  EXPECT_EQ(c.invalid_reason, "");
  EXPECT_EQ(c.params, (Bindings{{"A", 1}, {"B", 20}}));
  EXPECT_EQ(c.bindings, (Bindings{{"A", 1}, {"B", 20}, {"M", 100}, {"N", 7}, {"S", 20}}));
  EXPECT_EQ(c.kernel_name, "toy<float, 1, 20, 20>");
  EXPECT_EQ(c.launch.grid[0], 100);
  EXPECT_EQ(c.launch.grid[1], 20);
  EXPECT_EQ(c.launch.grid[2], 1);
  EXPECT_EQ(c.launch.block[0], 32);
  EXPECT_EQ(c.launch.block[1], 1);
  EXPECT_EQ(c.launch.shared_bytes, 80);

  const Candidate& d = candidates[2];  // A=2, B=10
  EXPECT_TRUE(d.valid) << d.invalid_reason;
  EXPECT_EQ(d.launch.grid[0], 50);
  EXPECT_EQ(d.launch.block[0], 64);
  EXPECT_EQ(d.kernel_name, "toy<float, 2, 10, 20>");
}

TEST(Enumerate, InvalidReasons) {
  Enumeration e = enumerate(parse(toy), context, placeholders);
  EXPECT_TRUE(e.candidates[0].valid);
  // A=3, B=10 passes constraint 1; constraint 2 divides by zero: invalid, with the error.
  const Candidate& c = e.candidates[3];
  EXPECT_EQ(c.params, (Bindings{{"A", 3}, {"B", 10}}));
  EXPECT_FALSE(c.valid);
  EXPECT_TRUE(contains(c.invalid_reason, "division by zero")) << c.invalid_reason;
  EXPECT_TRUE(contains(c.invalid_reason, "N / (A - 3)")) << c.invalid_reason;
  // A=2, B=20 fails both constraints and A=3, B=20 fails the first (where the second would divide
  // by zero): both are the first's.
  EXPECT_EQ(e.ruled_out.at("constraint failed: S != 40 && S != 60"), 2);
  EXPECT_EQ(std::count_if(e.candidates.begin(), e.candidates.end(), [](auto& c) { return c.valid; }), 3);
}

// A constraint on the first parameters rules out every combination below them at once; the
// verdict is the first constraint failed in the order of the last parameter each one reads,
// through derived values, then as listed.
TEST(Enumerate, ConstraintsRuleOutSubtreesInTheOrderOfTheParametersTheyRead) {
  const std::string text = R"json({
    "name": "tree", "family": "toy", "kernel": "k.cu", "kernel_name": "t<{A}, {B}, {C}>",
    "parameters": {"A": [1, 2, 3], "B": [1, 2, 3, 4], "C": [1, 2, 3, 4, 5]},
    "derived": {"AC": "A * C", "A2": "A * 2"},
    "constraints": ["AC != 4", "A2 != 4", "B != 3 || M == 0", "N > 0"],
    "launch": {"grid": [1, 1, 1], "block": [1, 1, 1]}
  })json";
  Enumeration e = enumerate(parse(text), context, placeholders);
  // A = 2 (A2 == 4, read at A) takes its 20 combinations, AC == 4 at A = 2, C = 2 included,
  // though listed first: AC is read only once C has its value. B = 3 then takes 5 of each
  // remaining A's 20, and AC == 4 the (A = 1, C = 4) of the remaining B's.
  EXPECT_EQ(e.ruled_out, (std::map<std::string, int64_t>{{"constraint failed: A2 != 4", 20},
                                                         {"constraint failed: B != 3 || M == 0", 10},
                                                         {"constraint failed: AC != 4", 3}}));
  EXPECT_EQ(e.candidates.size(), 60u - 20 - 10 - 3);
  for (const Candidate& c : e.candidates) {
    EXPECT_TRUE(c.valid) << c.invalid_reason;
    EXPECT_NE(c.params.at("A"), 2);
    EXPECT_NE(c.params.at("B"), 3);
    EXPECT_NE(c.params.at("A") * c.params.at("C"), 4);
  }
  // A constraint on the context alone rules out everything at the top.
  e = enumerate(parse(edit(text, "\"N > 0\"", "\"N > 100\"")), context, placeholders);
  EXPECT_TRUE(e.candidates.empty());
  EXPECT_EQ(e.ruled_out, (std::map<std::string, int64_t>{{"constraint failed: N > 100", 60}}));
}

TEST(Enumerate, DerivedErrorInvalidatesOnlyThatCandidate) {
  auto candidates =
      enumerate(parse(edit(toy, "\"S\": \"A * B\"", "\"S\": \"A * B\", \"D\": \"M / (B - 10)\"")),
                context, placeholders)
          .candidates;
  // (2, 20) and (3, 20) are ruled out; (3, 10)'s constraint error is its verdict, and D's
  // division by zero that of the two others with B = 10.
  ASSERT_EQ(candidates.size(), 4u);
  EXPECT_TRUE(contains(candidates[2].invalid_reason, "derived D: division by zero")) << candidates[2].invalid_reason;
  EXPECT_TRUE(contains(candidates[3].invalid_reason, "constraint: ")) << candidates[3].invalid_reason;
  EXPECT_FALSE(candidates[0].valid);
  EXPECT_TRUE(contains(candidates[0].invalid_reason, "derived D: division by zero"))
      << candidates[0].invalid_reason;
  EXPECT_EQ(candidates[0].kernel_name, "");
  EXPECT_TRUE(candidates[1].valid) << candidates[1].invalid_reason;
  EXPECT_EQ(candidates[1].bindings.at("D"), 10);
}

TEST(Enumerate, LaunchErrors) {
  auto candidates = enumerate(
      parse(edit(toy, "\"block\": [\"A * 32\", 1, 1]", "\"block\": [\"A * 32\", \"B - 10\", 1]")),
      context, placeholders).candidates;
  EXPECT_FALSE(candidates[0].valid);
  EXPECT_EQ(candidates[0].invalid_reason, "launch.block[1] = 0 is below 1");
  EXPECT_TRUE(candidates[1].valid);
  EXPECT_EQ(candidates[1].launch.block[1], 10);

  candidates =
      enumerate(parse(edit(toy, "\"B\", 1]", "\"B\", \"M / (20 - B)\"]")), context, placeholders).candidates;
  EXPECT_TRUE(candidates[0].valid);
  EXPECT_EQ(candidates[0].launch.grid[2], 10);
  EXPECT_FALSE(candidates[1].valid);
  EXPECT_TRUE(contains(candidates[1].invalid_reason, "launch.grid[2]: division by zero"))
      << candidates[1].invalid_reason;
}

TEST(Enumerate, MissingContextOrPlaceholderIsTheCallersError) {
  SweepConfig config = parse(toy);
  try {
    enumerate(config, {{"M", 100}}, placeholders);
    ADD_FAILURE() << "enumerated without N";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "\"N\"")) << e.what();
  }
  try {
    enumerate(config, context, {});
    ADD_FAILURE() << "enumerated without T";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "{T}")) << e.what();
  }
}

// A product past a hundred million is refused before the walk; a smaller one whose constraints
// leave more than the candidates kept may hold is refused as the walk passes that many.
TEST(Enumerate, RefusesAnUnreasonablyLargeSpace) {
  auto space = [](int params, const std::string& constraint) {
    std::string list, name = "k<";
    for (int p = 0; p < params; ++p) {
      list += std::string(p ? ", " : "") + "\"P" + std::to_string(p) + "\": [0,1,2,3,4,5,6,7,8,9]";
      name += "{P" + std::to_string(p) + "}";
    }
    return parse(R"({"name": "big", "family": "toy", "kernel": "k.cu", "kernel_name": ")" + name +
                 R"(>", "parameters": {)" + list + R"(}, "constraints": [")" + constraint +
                 R"("], "launch": {"grid": [1, 1, 1], "block": [1, 1, 1]}})");
  };
  auto refusal = [&](int params, const std::string& constraint) -> std::string {
    try {
      enumerate(space(params, constraint), context, placeholders);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_TRUE(contains(refusal(9, "P0 < 1"), "more than 100000000 combinations")) << refusal(9, "P0 < 1");
  EXPECT_TRUE(contains(refusal(6, "M > 0"), "the constraints leave more than 250000")) << refusal(6, "M > 0");
  // Constraints on the first parameters cut 10^8 down to 1000 without visiting the rest.
  Enumeration e = enumerate(space(8, "P0 + P1 + P2 + P3 + P4 == 0"), context, placeholders);
  EXPECT_EQ(e.candidates.size(), 1000u);
  EXPECT_EQ(e.ruled_out_total(), 100'000'000 - 1000);
}

TEST(Substitute, Placeholders) {
  const Bindings b = {{"X", 1}, {"Y", -2}};
  EXPECT_EQ(substitute("k<{X}, {Y}>", b, {}), "k<1, -2>");
  EXPECT_EQ(substitute("{X}{Y}{X}", b, {}), "1-21");
  EXPECT_EQ(substitute("k<{E}, {X}>", b, {{"E", "__half"}}), "k<__half, 1>");
  EXPECT_EQ(substitute("plain<3>", b, {}), "plain<3>");
  EXPECT_EQ(substitute("", b, {}), "");
  EXPECT_EQ(substitute("{X}", b, {{"X", "text"}}), "text");  // string placeholders win
  try {
    substitute("k<{X}, {Z}>", b, {});
    ADD_FAILURE() << "substituted an unknown name";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "{Z}")) << e.what();
  }
  EXPECT_THROW(substitute("k<{X>", b, {}), ConfigError);
  EXPECT_THROW(substitute("k<X}>", b, {}), ConfigError);
}

TEST(MakeCandidate, FromExplicitValues) {
  SweepConfig config = parse(toy);
  Candidate c = make_candidate(config, {{"A", 2}, {"B", 10}}, context, placeholders);
  Candidate same = enumerate(config, context, placeholders).candidates[2];
  EXPECT_TRUE(c.valid);
  EXPECT_EQ(c.params, same.params);
  EXPECT_EQ(c.bindings, same.bindings);
  EXPECT_EQ(c.kernel_name, same.kernel_name);
  EXPECT_EQ(c.launch.grid[0], same.launch.grid[0]);
  EXPECT_EQ(c.launch.shared_bytes, same.launch.shared_bytes);

  // A value outside the sweep's list is allowed.
  c = make_candidate(config, {{"A", 5}, {"B", 10}}, context, placeholders);
  EXPECT_TRUE(c.valid) << c.invalid_reason;
  EXPECT_EQ(c.kernel_name, "toy<float, 5, 10, 50>");
  // Constraints still apply, and say why.
  c = make_candidate(config, {{"A", 2}, {"B", 20}}, context, placeholders);
  EXPECT_FALSE(c.valid);
  EXPECT_EQ(c.invalid_reason, "constraint failed: S != 40 && S != 60");
}

// A winner recorded before a tunable joined the config takes the tunable's first value.
TEST(MakeCandidate, RecordedParamsTakeANewTunablesFirstValue) {
  SweepConfig config = parse(toy);
  EXPECT_EQ(recorded_params(config, {{"A", 2}}), (Bindings{{"A", 2}, {"B", 10}}));
  EXPECT_EQ(recorded_params(config, {{"A", 2}, {"B", 20}}), (Bindings{{"A", 2}, {"B", 20}}));
  EXPECT_EQ(make_candidate(config, recorded_params(config, {{"A", 2}}), context, placeholders).kernel_name,
            make_candidate(config, {{"A", 2}, {"B", 10}}, context, placeholders).kernel_name);
}

TEST(MakeCandidate, Errors) {
  SweepConfig config = parse(toy);
  try {
    make_candidate(config, {{"A", 2}}, context, placeholders);
    ADD_FAILURE() << "accepted a missing parameter";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "parameter B needs a value")) << e.what();
    EXPECT_TRUE(contains(e.what(), "10, 20")) << e.what();
  }
  try {
    make_candidate(config, {{"A", 2}, {"B", 10}, {"C", 1}}, context, placeholders);
    ADD_FAILURE() << "accepted an unknown parameter";
  } catch (const ConfigError& e) {
    EXPECT_TRUE(contains(e.what(), "no parameter C")) << e.what();
    EXPECT_TRUE(contains(e.what(), "A, B")) << e.what();
  }
  EXPECT_THROW(make_candidate(config, {{"A", 2}, {"B", 10}}, {{"M", 1}}, placeholders),
               ConfigError);
}

// ---- the real config (written by another engineer; skipped until it exists) ----

const char* gemm_config = KTUNE_SOURCE_DIR "/configs/gemm_mma.json";

std::vector<Candidate> enumerate_gemm(int64_t mnk, int64_t ld) {
  SweepConfig config = load_sweep_config(gemm_config,
                                         {"M", "N", "K", "elem_bytes", "a_row_major", "b_row_major",
                                          "lda", "ldb", "ldc", "arch", "max_smem", "sm_count", "l2_bytes",
                                          "splitk_partial_bytes", "splitk_counters", "block_scaled"},
                                         {"ELEMENT", "OUT_ELEMENT", "A_ROW_MAJOR", "B_ROW_MAJOR"}, {"A", "B", "C"});
  Bindings ctx = {{"M", mnk},         {"N", mnk},         {"K", mnk},           {"elem_bytes", 2},
                  {"a_row_major", 1}, {"b_row_major", 1}, {"lda", ld},          {"ldb", ld},
                  {"ldc", ld},        {"arch", 90},       {"max_smem", 232448}, {"sm_count", 132}, {"l2_bytes", 52428800},
                  {"splitk_partial_bytes", 32 << 20}, {"splitk_counters", 1 << 16}, {"block_scaled", 0}};
  Enumeration e =
      enumerate(config, ctx, {{"ELEMENT", "__half"}, {"OUT_ELEMENT", "__half"}, {"A_ROW_MAJOR", "1"}, {"B_ROW_MAJOR", "1"}});
  int64_t product = 1;
  for (const auto& [name, values] : config.parameters) product *= static_cast<int64_t>(values.size());
  EXPECT_EQ(static_cast<int64_t>(e.candidates.size()) + e.ruled_out_total(), product);
  std::vector<Candidate>& candidates = e.candidates;
  for (const auto& c : candidates) {
    if (!c.valid) {
      EXPECT_FALSE(c.invalid_reason.empty());
      continue;
    }
    EXPECT_FALSE(contains(c.kernel_name, "{")) << c.kernel_name;
    EXPECT_TRUE(contains(c.kernel_name, "__half")) << c.kernel_name;
    EXPECT_LE(c.launch.shared_bytes, 232448) << c.kernel_name;
  }
  return std::move(candidates);
}

size_t count_valid(const std::vector<Candidate>& candidates, int aligned = -1) {
  return std::count_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
    return c.valid && (aligned < 0 || c.params.at("ALIGNED") == aligned);
  });
}

TEST(GemmMmaConfig, ManyValidCandidatesAt4096) {
  if (!std::filesystem::exists(gemm_config)) GTEST_SKIP() << gemm_config << " does not exist yet";
  auto candidates = enumerate_gemm(4096, 4096);
  EXPECT_GE(count_valid(candidates), 100u);
}

TEST(GemmMmaConfig, TinyUnalignedProblemHasAValidCandidate) {
  if (!std::filesystem::exists(gemm_config)) GTEST_SKIP() << gemm_config << " does not exist yet";
  auto candidates = enumerate_gemm(1, 1);
  EXPECT_GE(count_valid(candidates, 0), 1u);
}


// The walk against the definition it speeds up: a combination is kept exactly when, evaluated on
// its own, every derived value and every constraint it reaches holds. Every built-in config, at
// the first and last of its own problems, on random combinations of its product.
TEST(Enumerate, TheWalkKeepsWhatCheckingEachCombinationAloneKeeps) {
  std::mt19937_64 random(20261130);
  for (const KernelFamily* family : all_families()) {
    if (!family->declaration_file().empty()) continue;
    for (std::string_view path : family->default_configs()) {
      const SweepConfig config = parse_family_config(*family, *find_embedded(path), std::string(path));
      const std::vector<Problem> problems = config_problems(config, config.problems).problems;
      for (const Problem* problem : {&problems.front(), &problems.back()}) {
        const Bindings context = family->context(*problem, arch_facts_offline("sm_90a"));
        const Enumeration e = enumerate(config, context, family->placeholders(*problem));
        int64_t product = 1;
        for (const auto& [name, values] : config.parameters) product *= static_cast<int64_t>(values.size());
        ASSERT_EQ(static_cast<int64_t>(e.candidates.size()) + e.ruled_out_total(), product) << path;
        std::set<Bindings> kept;
        for (const Candidate& c : e.candidates) kept.insert(c.params);

        for (int n = 0; n < 4000; ++n) {
          Bindings params, bindings = context;
          for (const auto& [name, values] : config.parameters)
            bindings[name] = params[name] = values[random() % values.size()];
          bool holds = true, error = false;
          try {
            for (const auto& [name, expr] : config.derived) bindings[name] = expr.eval(bindings);
          } catch (const ConfigError&) {
            error = true;
          }
          for (size_t k = 0; k < config.constraints.size() && holds && !error; ++k) {
            try {
              holds = config.constraints[k].eval(bindings) != 0;
            } catch (const ConfigError&) {
              error = true;
            }
          }
          if (error) continue;  // kept or counted, depending on what rules it out first
          EXPECT_EQ(kept.count(params) > 0, holds) << path << " " << describe(*problem) << " " << fmt::format("{}", params);
        }
      }
    }
  }
}

}  // namespace
}  // namespace ktune
