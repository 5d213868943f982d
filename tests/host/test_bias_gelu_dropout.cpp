// The bias_gelu_dropout family without a GPU: cuRAND's Philox4x32-10 (compiled for the host)
// against Random123's known answers, the mask rule built on it (16 bits an element, eight elements
// a Philox call), the p option, the byte count, the sweep config's candidates, and the suites that
// name the family.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "bench/suite.hpp"
#include "compile/embedded.hpp"
#include "families/dropout_rng.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

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

TEST(BiasGeluDropout, ElementHalvesAreThe16BitHalvesOfTheirGroupOfEight) {
  // Seed 0, elements 0..7: group 0, key 0 -- the all-zero known answer {0x6627e8d5, 0xe169c58d,
  // 0xbc57ac4c, 0x9b00dbd8}, each word's low half before its high half, x before y before z before w.
  const uint32_t kat[8] = {0xe8d5, 0x6627, 0xc58d, 0xe169, 0xac4c, 0xbc57, 0xdbd8, 0x9b00};
  for (uint64_t i = 0; i < 8; ++i) EXPECT_EQ(dropout::element_half(0, i), kat[i]) << i;
  // Element 8 starts group 1.
  EXPECT_EQ(dropout::element_half(0, 8), dropout::philox4x32_10({1, 0, 0, 0}, {0, 0})[0] & 0xffff);
  // The counter's high word is hi32(i / 8), the key's high word hi32(seed): both change the halves.
  const uint64_t seed = 0x0123456789abcdefull, far = (uint64_t{5} << 35) + 8 + 5;  // group 5 * 2^32 + 1, half 5
  const auto r = dropout::philox4x32_10({1, 5, 0, 0}, {0x89abcdef, 0x01234567});
  EXPECT_EQ(dropout::element_half(seed, far), r[2] >> 16);
  EXPECT_NE(dropout::element_half(seed, far), dropout::philox4x32_10({1, 0, 0, 0}, {0x89abcdef, 0x01234567})[2] >> 16);
  EXPECT_NE(dropout::element_half(seed, far), dropout::philox4x32_10({1, 5, 0, 0}, {0x89abcdef, 0})[2] >> 16);
}

TEST(BiasGeluDropout, Threshold16IsFloorOfTheFloatPTimesTwoTo16) {
  EXPECT_EQ(dropout::threshold16(0.0f), 0u);  // keeps everything
  EXPECT_EQ(dropout::threshold16(0.5f), 32768u);
  EXPECT_EQ(dropout::threshold16(0.1f), 6553u);   // 0.1f = 13421773 * 2^-27: 6553.6006 * 2^-16
  EXPECT_EQ(dropout::threshold16(0.2f), 13107u);  // 0.2f = 13421773 * 2^-26
  EXPECT_EQ(dropout::threshold16(std::nextafter(1.0f, 0.0f)), 65535u);  // never drops everything
  EXPECT_TRUE(dropout::keeps(7, 3, 0));
  EXPECT_TRUE(dropout::keeps(0, 1, 0x6627));  // element 1 of seed 0 is 0x6627: kept at equality
  EXPECT_FALSE(dropout::keeps(0, 1, 0x6628));
}

// The rule drops with probability threshold16 / 2^16: at most p, and less than 2^-16 below it,
// for every p the option parses (and a spread of others in [0, 1)).
TEST(BiasGeluDropout, DropProbabilityIsWithinTwoToMinus16OfP) {
  std::vector<float> ps = {0.0f, 0.1f, 0.2f, 0.5f, std::nextafter(1.0f, 0.0f)};
  for (int k = 1; k < 1000; ++k) ps.push_back(k / 1000.0f);
  for (float p : ps) {
    const double q = dropout::drop_probability(p);
    EXPECT_LE(q, static_cast<double>(p)) << p;
    EXPECT_GT(q, static_cast<double>(p) - std::ldexp(1.0, -16)) << p;
  }
  EXPECT_DOUBLE_EQ(dropout::drop_probability(0.1f), 6553.0 / 65536);
}

TEST(BiasGeluDropout, KeepRateIsOneMinusTheDropProbability) {
  // 2^20 elements of one seed: the kept fraction within 5 binomial standard deviations of
  // 1 - threshold16 / 2^16 (which is within 2^-16 of 1 - p), at every half of a group alike.
  const uint64_t n = uint64_t{1} << 20;
  for (float p : {0.1f, 0.5f}) {
    const uint32_t t = dropout::threshold16(p);
    const double q = dropout::drop_probability(p);
    int64_t kept = 0, kept_by_half[8] = {};
    for (uint64_t i = 0; i < n; ++i) {
      const bool k = dropout::keeps(1234, i, t);
      kept += k;
      kept_by_half[i % 8] += k;
    }
    const double sigma = std::sqrt(q * (1 - q) / n);
    EXPECT_LT(std::abs(kept / double(n) - (1 - q)), 5 * sigma) << "p " << p << ": kept " << kept;
    const double sigma_half = std::sqrt(q * (1 - q) / (n / 8));
    for (int h = 0; h < 8; ++h)
      EXPECT_LT(std::abs(kept_by_half[h] / double(n / 8) - (1 - q)), 5 * sigma_half) << "p " << p << ", half " << h;
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

// Every problem of the config (and ragged ones) has candidates, all with 16-byte vectors of X and
// Y, the bias gathered exactly where a row's bytes are not a multiple of 16 (aligned bias vectors
// otherwise), and not too many for CI's offline compile.
TEST(BiasGeluDropout, ConfigTakesSixteenByteVectorsAndGathersTheBiasOnlyForRowsOfPartVectors) {
  const KernelFamily& f = find_family("bias_gelu_dropout");
  const std::string path = "configs/bias_gelu_dropout.json";
  SweepConfig config = parse_family_config(f, *find_embedded(path), path);
  struct Case {
    int64_t rows, cols;
    std::string dtype;
    int64_t gather_bias;
  };
  const std::vector<Case> cases = {{16384, 8192, "fp16", 0}, {16384, 8192, "fp32", 0}, {1000, 3001, "fp16", 1},
                                   {32768, 3001, "bf16", 1}, {1000, 3001, "fp32", 1},  {3, 6, "fp16", 1},
                                   {5, 12, "fp16", 1},       {7, 2, "fp32", 1},        {7, 4, "fp32", 0},
                                   {1, 1, "bf16", 1},        {9, 8, "bf16", 0}};
  for (const ArchFacts& arch : {arch_facts_offline("sm_80"), arch_facts_offline("sm_90a")})
    for (const Case& k : cases) {
      const Problem p{"bias_gelu_dropout", {{"rows", k.rows}, {"cols", k.cols}}, k.dtype, {{"p", "0.1"}}};
      std::set<int64_t> widths, gathers;
      int valid = 0;
      for (const Candidate& c : enumerate(config, f.context(p, arch), f.placeholders(p)).candidates)
        if (c.valid) {
          ++valid;
          widths.insert(c.params.at("VEC_BYTES"));
          gathers.insert(c.params.at("GATHER_BIAS"));
          EXPECT_GE(c.launch.grid[0], 1);
        }
      EXPECT_EQ(widths, std::set<int64_t>{16}) << describe(p);
      EXPECT_EQ(gathers, std::set<int64_t>{k.gather_bias}) << describe(p);
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
