// The bias_gelu_dropout family without a GPU: cuRAND's Philox4x32-10 (compiled for the host)
// against Random123's known answers, the mask rule built on it, the p option, the byte count, the
// sweep config's candidates, and the suites that name the family.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "bench/suite.hpp"
#include "compile/embedded.hpp"
#include "families/dropout_rng.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

#ifndef KTUNE_SOURCE_DIR
#define KTUNE_SOURCE_DIR "."
#endif

namespace ktune {
namespace {

// Random123's kat_vectors for philox4x32_10 (counter words, key words -> output), as D. E. Shaw
// Research's Random123-Boost copies them into libs/random/test/test_philox.cpp.
TEST(BiasGeluDropout, CuRandPhiloxMatchesRandom123KnownAnswers) {
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(dropout::philox4x32_10({0, 0, 0, 0}, {0, 0}), (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(dropout::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(dropout::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(BiasGeluDropout, ElementWordsAreThePhiloxWordsOfTheirGroupOfFour) {
  // Seed 0, elements 0..3: group 0, key 0 -- the all-zero known answer, word i for element i.
  const uint32_t kat[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(dropout::element_word(0, i), kat[i]) << i;
  // The counter's high word is hi32(i / 4), the key's high word hi32(seed): both change the words.
  const uint64_t seed = 0x0123456789abcdefull, far = (uint64_t{5} << 34) + 6;  // group 5 * 2^32 + 1
  const auto r = dropout::philox4x32_10({1, 5, 0, 0}, {0x89abcdef, 0x01234567});
  EXPECT_EQ(dropout::element_word(seed, far), r[2]);
  EXPECT_NE(dropout::element_word(seed, far), dropout::philox4x32_10({1, 0, 0, 0}, {0x89abcdef, 0x01234567})[2]);
  EXPECT_NE(dropout::element_word(seed, far), dropout::philox4x32_10({1, 5, 0, 0}, {0x89abcdef, 0})[2]);
}

TEST(BiasGeluDropout, ThresholdIsFloorOfTheFloatPTimesTwoTo32) {
  EXPECT_EQ(dropout::threshold(0.0f), 0u);          // keeps everything
  EXPECT_EQ(dropout::threshold(0.5f), 2147483648u);
  EXPECT_EQ(dropout::threshold(0.1f), 429496736u);  // 0.1f = 13421773 * 2^-27
  EXPECT_EQ(dropout::threshold(0.2f), 858993472u);  // 0.2f = 13421773 * 2^-26
  EXPECT_TRUE(dropout::keeps(7, 3, 0));
}

TEST(BiasGeluDropout, KeepRateIsOneMinusP) {
  // 2^20 elements of one seed: the kept fraction within 5 binomial standard deviations.
  const double n = 1 << 20;
  for (float p : {0.1f, 0.5f}) {
    const uint32_t t = dropout::threshold(p);
    int64_t kept = 0;
    for (uint64_t i = 0; i < (uint64_t{1} << 20); ++i) kept += dropout::keeps(1234, i, t);
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_LT(std::abs(kept / n - (1 - p)), 5 * sigma) << "p " << p << ": kept " << kept;
  }
}

TEST(BiasGeluDropout, POptionParsesAndIsChecked) {
  EXPECT_EQ(dropout::parse_p("0.1"), 0.1f);
  EXPECT_EQ(dropout::parse_p("0.5"), 0.5f);
  EXPECT_EQ(dropout::parse_p("0"), 0.0f);
  for (const char* bad : {"", "1", "1.5", "-0.1", "abc", "0.1x", "nan", " "})
    EXPECT_THROW(dropout::parse_p(bad), ConfigError) << "'" << bad << "'";
  // Through the schema: the default fills in, a listed value passes, others are refused.
  Problem p{"bias_gelu_dropout", {{"rows", 1000}, {"cols", 3001}}, "fp16", {}};
  complete_options(p);
  EXPECT_EQ(p.option("p"), "0.1");
  EXPECT_NO_THROW(check_problem(p));
  EXPECT_EQ(describe(p), "bias_gelu_dropout 1000x3001 fp16 0.1");
  p.options["p"] = "0.5";
  EXPECT_NO_THROW(check_problem(p));
  p.options["p"] = "0.3";
  EXPECT_THROW(check_problem(p), ConfigError);
  p.options["p"] = "0.1";
  p.dims["rows"] = 0;
  EXPECT_THROW(check_problem(p), ConfigError);
  p.dims["rows"] = 1;
  p.dims["cols"] = int64_t{1} << 31;
  EXPECT_THROW(check_problem(p), ConfigError);
  p.dims["cols"] = 5;
  p.dtype = "fp8";
  EXPECT_THROW(check_problem(p), ConfigError);
}

TEST(BiasGeluDropout, CostCountsXYAndOneReadOfBias) {
  const KernelFamily& f = find_family("bias_gelu_dropout");
  EXPECT_EQ(f.bound(), Bound::memory);
  const Cost c = f.cost(Problem{"bias_gelu_dropout", {{"rows", 1000}, {"cols", 3001}}, "fp16", {{"p", "0.1"}}});
  EXPECT_DOUBLE_EQ(c.min_bytes, 2.0 * 1000 * 3001 * 2 + 3001 * 2);
  EXPECT_DOUBLE_EQ(c.flops, 20.0 * 1000 * 3001);
  const Cost c32 = f.cost(Problem{"bias_gelu_dropout", {{"rows", 16384}, {"cols", 8192}}, "fp32", {{"p", "0.5"}}});
  EXPECT_DOUBLE_EQ(c32.min_bytes, 2.0 * 16384 * 8192 * 4 + 8192 * 4);
  EXPECT_EQ(rate_unit(Problem{"bias_gelu_dropout", {{"rows", 1}, {"cols", 1}}, "fp16", {{"p", "0.1"}}}), "GB/s");
}

// Every problem of the config (and ragged ones) has candidates, all of one vector width, the
// widest the row length allows, and not too many for CI's offline compile.
TEST(BiasGeluDropout, ConfigPicksTheWidestAlignedVectorAndStaysModest) {
  const KernelFamily& f = find_family("bias_gelu_dropout");
  const std::string path = "configs/bias_gelu_dropout.json";
  SweepConfig config = parse_sweep_config(*find_embedded(path), path, f.context_names(), f.placeholder_names());
  struct Case {
    int64_t rows, cols;
    std::string dtype;
    int64_t vec_bytes;
  };
  const std::vector<Case> cases = {{16384, 8192, "fp16", 16}, {16384, 8192, "fp32", 16}, {1000, 3001, "fp16", 2},
                                   {1000, 3001, "bf16", 2},    {1000, 3001, "fp32", 4},   {3, 6, "fp16", 4},
                                   {5, 12, "fp16", 8},         {7, 2, "fp32", 8},         {1, 1, "bf16", 2}};
  for (const ArchFacts& arch : {arch_facts_offline("sm_80"), arch_facts_offline("sm_90a")})
    for (const Case& k : cases) {
      const Problem p{"bias_gelu_dropout", {{"rows", k.rows}, {"cols", k.cols}}, k.dtype, {{"p", "0.1"}}};
      std::set<int64_t> widths;
      int valid = 0;
      for (const Candidate& c : enumerate(config, f.context(p, arch), f.placeholders(p)))
        if (c.valid) {
          ++valid;
          widths.insert(c.params.at("VEC_BYTES"));
          EXPECT_GE(c.launch.grid[0], 1);
        }
      EXPECT_EQ(widths, std::set<int64_t>{k.vec_bytes}) << describe(p);
      EXPECT_GE(valid, 20) << describe(p);
      EXPECT_LE(valid, 150) << describe(p);
    }
}

TEST(BiasGeluDropout, SuitesNameValidProblems) {
  int seen = 0;
  for (const char* name : {"/suites/bias-gelu-dropout.json", "/suites/memory-bound.json"}) {
    const Suite s = load_suite(std::string(KTUNE_SOURCE_DIR) + name);
    for (const SuiteProblem& sp : s.problems) {
      EXPECT_NO_THROW(check_problem(sp.problem)) << describe(sp.problem);
      seen += sp.problem.family == "bias_gelu_dropout";
    }
  }
  EXPECT_GE(seen, 12);
}

}  // namespace
}  // namespace ktune
