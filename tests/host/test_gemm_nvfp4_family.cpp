// gemm_nvfp4's host side: which problems it accepts (K whole 16-byte pieces of nibbles), what a
// problem costs (4.5 bits a weight, not 16), the arguments a kernel must declare and a runtime
// caller passes, and which shapes its configs cover (decode M <= 16, said by the constraint;
// prefill M >= 16 on Hopper).
#include <gtest/gtest.h>

#include <string>

#include "compile/embedded.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

Problem nvfp4(int64_t m, int64_t n, int64_t k, const std::string& dtype = "bf16") {
  return Problem{"gemm_nvfp4", {{"M", m}, {"N", n}, {"K", k}}, dtype, {}};
}

std::string check_error(const Problem& p) {
  try {
    check_problem(p);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(GemmNvfp4Family, KMustBeWholePiecesOfPackedNibbles) {
  EXPECT_EQ(check_error(nvfp4(1, 4096, 4096)), "accepted");
  EXPECT_EQ(check_error(nvfp4(7, 100, 32, "fp16")), "accepted");
  const std::string why = check_error(nvfp4(1, 4096, 4008));
  EXPECT_NE(why.find("K = 4008"), std::string::npos) << why;
  EXPECT_NE(why.find("multiple of 32"), std::string::npos) << why;
  EXPECT_NE(check_error(nvfp4(0, 4096, 4096)), "accepted");
  EXPECT_NE(check_error(nvfp4(1, 4096, 4096, "fp8")), "accepted");  // activations are 16-bit
  // N has no default: a decode shape's M says nothing about the weight.
  Problem no_n{"gemm_nvfp4", {{"M", 1}, {"K", 4096}}, "bf16", {}};
  complete_options(no_n);
  EXPECT_NE(check_error(no_n), "accepted");
}

TEST(GemmNvfp4Family, CostCountsFourAndAHalfBitsAWeight) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const Cost c = family.cost(nvfp4(1, 4096, 14336));
  EXPECT_DOUBLE_EQ(c.flops, 2.0 * 4096 * 14336);
  // A and C in bf16, the nibbles (half a byte each), an e4m3 scale per 16, the tensor scale.
  EXPECT_DOUBLE_EQ(c.min_bytes, 14336 * 2 + 4096.0 * 14336 / 2 + 4096.0 * 14336 / 16 + 4 + 4096 * 2);
  EXPECT_EQ(family.bound(), Bound::memory);
  // Decode is judged in GB/s, prefill (a GEMM) in TFLOPS.
  EXPECT_EQ(rate_unit(nvfp4(16, 4096, 4096)), "GB/s");
  EXPECT_EQ(rate_unit(nvfp4(256, 4096, 4096)), "TFLOPS");
}

TEST(GemmNvfp4Family, ArgumentsAKernelDeclaresAndARuntimeCallerPasses) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const Problem p = nvfp4(2, 256, 512, "fp16");
  const SweepConfig config =
      parse_family_config(family, *find_embedded("configs/gemm_nvfp4.json"), "configs/gemm_nvfp4.json");
  const std::vector<KernelParam> params = family.kernel_parameters(p, config);
  ASSERT_EQ(params.size(), 10u);
  EXPECT_EQ(params[0].type, "const __half*");
  EXPECT_EQ(params[1].type, "const unsigned char*");
  EXPECT_EQ(params[2].what, "W_scales");
  EXPECT_EQ(params[3].type, "const float*");
  EXPECT_EQ(params[4].type, "__half*");
  EXPECT_TRUE(params[8].may_end_before);
  int64_t w = 0, scales = 0;
  for (const LaunchOperand& op : family.launch_operands(p)) {
    if (op.name == "W") w = op.bytes;
    if (op.name == "W_scales") scales = op.bytes;
  }
  EXPECT_EQ(w, 256 * 512 / 2);
  EXPECT_EQ(scales, 256 * 512 / 16);
}

TEST(GemmNvfp4Family, DecodeConfigCoversUpToSixteenRowsAndSaysSoBeyond) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const SweepConfig config =
      parse_family_config(family, *find_embedded("configs/gemm_nvfp4.json"), "configs/gemm_nvfp4.json");
  auto candidates = [&](const Problem& p, const char* arch) {
    return enumerate(config, family.context(p, arch_facts_offline(arch)), family.placeholders(p)).candidates;
  };
  for (int64_t m : {1, 8, 9, 16}) {
    size_t valid = 0;
    for (const Candidate& c : candidates(nvfp4(m, 4096, 4096), "sm_90a")) {
      valid += c.valid;
      if (c.valid) EXPECT_EQ(c.params.at("N_TILES"), m > 8 ? 2 : 1) << c.kernel_name;
    }
    EXPECT_GT(valid, 10u) << "M = " << m;
  }
  // The Blackwell path has the same candidates (CI's compile_*_sm_100a compiles them; compile-only
  // until a Blackwell GPU measures one).
  size_t blackwell = 0;
  for (const Candidate& c : candidates(nvfp4(1, 4096, 4096), "sm_100a")) blackwell += c.valid;
  EXPECT_GT(blackwell, 10u);
  // Prefill shapes: no candidate, and the constraint that rules them out names the limit.
  for (const Candidate& c : candidates(nvfp4(256, 4096, 4096), "sm_90a")) {
    EXPECT_FALSE(c.valid);
    EXPECT_NE(c.invalid_reason.find("M <= 16"), std::string::npos) << c.invalid_reason;
  }
}

TEST(GemmNvfp4Family, PrefillConfigTakesSixteenRowsAndMoreOnHopperOnly) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const SweepConfig config = parse_family_config(family, *find_embedded("configs/gemm_nvfp4_wgmma.json"),
                                                 "configs/gemm_nvfp4_wgmma.json");
  auto valid = [&](const Problem& p, const char* arch) {
    size_t n = 0;
    for (const Candidate& c : enumerate(config, family.context(p, arch_facts_offline(arch)), family.placeholders(p)).candidates)
      n += c.valid;
    return n;
  };
  EXPECT_GT(valid(nvfp4(256, 4096, 4096), "sm_90a"), 10u);
  EXPECT_GT(valid(nvfp4(4096, 14336, 4096, "fp16"), "sm_90a"), 10u);
  EXPECT_GT(valid(nvfp4(16, 4096, 4096), "sm_90a"), 0u);
  EXPECT_EQ(valid(nvfp4(8, 4096, 4096), "sm_90a"), 0u);      // decode: the streaming kernel's
  EXPECT_EQ(valid(nvfp4(256, 4096, 4064), "sm_90a"), 0u);    // K not whole 64-k stages
  EXPECT_EQ(valid(nvfp4(256, 4096, 4096), "sm_100a"), 0u);   // wgmma is sm_90a's alone
  // Its kernels take A and W as TMA descriptors, the rest as the decode kernel does.
  const std::vector<KernelParam> params = family.kernel_parameters(nvfp4(256, 4096, 4096), config);
  ASSERT_EQ(params.size(), 10u);
  EXPECT_EQ(params[0].type, "CUtensorMap");
  EXPECT_EQ(params[1].type, "CUtensorMap");
  EXPECT_EQ(params[2].type, "const unsigned char*");
  EXPECT_EQ(params[4].type, "__nv_bfloat16*");
  EXPECT_EQ(family.default_configs().size(), 2u);
}

// TAIL 1 (split only the tiles past the last whole wave) is offered where a partial last wave
// leaves SMs idle and its split units still fit in one wave, and nowhere else: 1024 x 14336 in
// 128 x 256 tiles is 448 tiles on 132 SMs (52 past three waves, 104 units split in two); 4096 x
// 4096 in 128 x 256 tiles is 512 tiles (116 past, too many to split); 256 x 4096 is 32 tiles
// (fewer than SMs: every tile is split, TAIL 0).
TEST(GemmNvfp4Family, TailSplitOnlyWhereTheLastWaveHasRoom) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const SweepConfig config = parse_family_config(family, *find_embedded("configs/gemm_nvfp4_wgmma.json"),
                                                 "configs/gemm_nvfp4_wgmma.json");
  auto tail_split = [&](const Problem& p, int64_t block_t, int64_t split_k) {
    for (const Candidate& c :
         enumerate(config, family.context(p, arch_facts_offline("sm_90a")), family.placeholders(p)).candidates)
      if (c.valid && c.params.at("TAIL") == 1 && c.params.at("BLOCK_T") == block_t &&
          c.params.at("NUM_CONSUMERS") == 2 && c.params.at("SPLIT_K") == split_k) {
        EXPECT_EQ(c.bindings.at("WHOLE"), 396) << describe(p);  // three waves of 132
        EXPECT_EQ(c.launch.grid[0], 132);
        return true;
      }
    return false;
  };
  EXPECT_TRUE(tail_split(nvfp4(1024, 14336, 4096), 256, 2));
  EXPECT_FALSE(tail_split(nvfp4(1024, 14336, 4096), 256, 4));  // 208 split units: a fifth wave
  EXPECT_FALSE(tail_split(nvfp4(4096, 4096, 4096), 256, 2));
  EXPECT_FALSE(tail_split(nvfp4(256, 4096, 4096), 256, 2));
}

}  // namespace
}  // namespace ktune
