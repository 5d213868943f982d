// The gemm family's host side, per dtype: which problems it accepts (fp8 only as rc), the names
// and values sweep configs see (elem_bytes, out_bytes, ELEMENT, OUT_ELEMENT), cost and memory,
// gemm_mma ruling fp8 out, and the fp8 helper kernels of kernels/util.cu compiling under NVRTC.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {
namespace {

Problem gemm(int64_t m, int64_t n, int64_t k, const std::string& dtype, const std::string& layout) {
  return Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, dtype, {{"layout", layout}}};
}

std::string validate_error(const Problem& p) {
  try {
    check_problem(p);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(GemmFamily, Fp8TakesLayoutRcOnly) {
  EXPECT_EQ(validate_error(gemm(64, 64, 64, "fp8", "rc")), "accepted");
  for (const char* layout : {"rr", "cr", "cc"}) {
    const std::string why = validate_error(gemm(64, 64, 64, "fp8", layout));
    EXPECT_NE(why.find("fp8"), std::string::npos) << why;
    EXPECT_NE(why.find("rc"), std::string::npos) << why;
    EXPECT_NE(why.find(std::string("'") + layout + "'"), std::string::npos) << why;
  }
  // The other dtypes keep every layout.
  for (const char* dtype : {"fp16", "bf16", "fp32"})
    for (const char* layout : {"rr", "rc", "cr", "cc"})
      EXPECT_EQ(validate_error(gemm(64, 64, 64, dtype, layout)), "accepted") << dtype << " " << layout;
  const std::string unknown = validate_error(gemm(64, 64, 64, "fp4", "rc"));
  EXPECT_NE(unknown.find("fp16, bf16, fp8, fp32"), std::string::npos) << unknown;
  const std::string bad_layout = validate_error(gemm(64, 64, 64, "fp16", "rx"));
  EXPECT_NE(bad_layout.find("unknown layout 'rx'"), std::string::npos) << bad_layout;
  Problem extra = gemm(64, 64, 64, "fp16", "rr");
  extra.dims["KK"] = 3;
  EXPECT_NE(validate_error(extra).find("no dimension 'KK'"), std::string::npos) << validate_error(extra);
}

TEST(GemmFamily, ContextGivesElementAndOutputBytes) {
  const KernelFamily& family = find_family("gemm");
  EXPECT_TRUE(contains(family.context_names(), "out_bytes"));
  EXPECT_TRUE(contains(family.placeholder_names(), "OUT_ELEMENT"));
  const ArchFacts hopper = arch_facts_offline("sm_90a");
  struct Expect {
    const char* dtype;
    const char* layout;
    int64_t elem_bytes, out_bytes;
    const char *element, *out_element;
  };
  for (const Expect& e : {Expect{"fp16", "rr", 2, 2, "__half", "__half"},
                          Expect{"bf16", "cc", 2, 2, "__nv_bfloat16", "__nv_bfloat16"},
                          Expect{"fp32", "cr", 4, 4, "float", "float"},
                          Expect{"fp8", "rc", 1, 2, "__nv_fp8_e4m3", "__nv_bfloat16"}}) {
    const Problem p = gemm(100, 300, 70, e.dtype, e.layout);
    const Bindings b = family.context(p, hopper);
    EXPECT_EQ(b.at("elem_bytes"), e.elem_bytes) << e.dtype;
    EXPECT_EQ(b.at("out_bytes"), e.out_bytes) << e.dtype;
    EXPECT_EQ(b.at("ldc"), 300) << e.dtype;
    // Every name the family announces has a value, and nothing else does.
    for (const std::string& name : family.context_names()) EXPECT_TRUE(b.count(name)) << name;
    EXPECT_EQ(b.size(), family.context_names().size());

    const auto ph = family.placeholders(p);
    EXPECT_EQ(ph.at("ELEMENT"), e.element) << e.dtype;
    EXPECT_EQ(ph.at("OUT_ELEMENT"), e.out_element) << e.dtype;
    EXPECT_EQ(ph.size(), family.placeholder_names().size());
  }
  const Bindings rc = family.context(gemm(100, 300, 70, "fp8", "rc"), hopper);
  EXPECT_EQ(rc.at("lda"), 70);  // both operands K-contiguous
  EXPECT_EQ(rc.at("ldb"), 70);
}

TEST(GemmFamily, CostCountsOneByteInputsAndATwoByteOutput) {
  const KernelFamily& family = find_family("gemm");
  const int64_t m = 1000, n = 3008, k = 704;
  const Cost fp8 = family.cost(gemm(m, n, k, "fp8", "rc"));
  EXPECT_DOUBLE_EQ(fp8.flops, 2.0 * m * n * k);
  EXPECT_DOUBLE_EQ(fp8.min_bytes, double(m * k + k * n + 2 * m * n));
  EXPECT_DOUBLE_EQ(family.cost(gemm(m, n, k, "fp16", "rr")).min_bytes, 2.0 * (m * k + k * n + m * n));
  EXPECT_DOUBLE_EQ(family.cost(gemm(m, n, k, "fp32", "rr")).min_bytes, 4.0 * (m * k + k * n + m * n));

  // Device memory: inputs, C, the fp32 reference, split-K's workspace (the sizes the context
  // gives configs), two guard bands around each of the 6 buffers (gpu/guarded_buffers.hpp), and
  // for fp8 two buffers of scales and the fp32 copies of A and B that exist while the reference
  // is computed.
  const Bindings b = family.context(gemm(m, n, k, "fp16", "rr"), ArchFacts{90, 232448, 132});
  const int64_t workspace = b.at("splitk_partial_bytes") + 4 * b.at("splitk_counters");
  EXPECT_GT(workspace, 0);
  EXPECT_EQ(family.device_bytes(gemm(m, n, k, "fp16", "rr")),
            2 * (m * k + k * n + m * n) + 4 * m * n + workspace + guard_overhead(6));
  EXPECT_GE(family.device_bytes(gemm(m, n, k, "fp8", "rc")),
            (m * k + k * n) + 2 * m * n + 4 * m * n + 4 * (m * k + k * n));
}

TEST(GemmFamily, Fp8ToleranceIsLooserThanBf16) {
  const KernelFamily& family = find_family("gemm");
  const Tolerance fp8 = family.default_tolerance("fp8"), bf16 = family.default_tolerance("bf16");
  EXPECT_DOUBLE_EQ(fp8.atol, 3e-2);
  EXPECT_DOUBLE_EQ(fp8.rtol, 3e-2);
  EXPECT_DOUBLE_EQ(fp8.max_norm_rel, bf16.max_norm_rel);
}

// mma.sync in gemm_mma has no fp8 path: the config must rule every fp8 candidate out, with the
// reason saying why, while fp16 still has candidates.
TEST(GemmFamily, GemmMmaTakesFp8InLayoutRcFromAda) {
  const KernelFamily& family = find_family("gemm");
  const SweepConfig config = parse_family_config(family, *find_embedded("configs/gemm_mma.json"), "configs/gemm_mma.json");
  auto count_valid = [&](const Problem& p, const char* arch) {
    size_t valid = 0;
    for (const Candidate& c :
         enumerate(config, family.context(p, arch_facts_offline(arch)), family.placeholders(p)).candidates) {
      valid += c.valid;
      if (c.valid) {
        EXPECT_NE(c.kernel_name.find(p.dtype == "fp8" ? "__nv_fp8_e4m3, __nv_bfloat16" : "__half, __half"),
                  std::string::npos)
            << c.kernel_name;
      }
    }
    return valid;
  };
  // fp8 C rows of 250 bf16 (500 bytes): what cuBLASLt and TMA refuse, gemm_mma runs.
  EXPECT_GT(count_valid(gemm(256, 250, 512, "fp8", "rc"), "sm_90a"), 0u);
  EXPECT_GT(count_valid(gemm(4096, 4096, 4096, "fp8", "rc"), "sm_89"), 0u);
  EXPECT_EQ(count_valid(gemm(4096, 4096, 4096, "fp8", "rc"), "sm_80"), 0u);   // no fp8 mma before Ada
  EXPECT_EQ(count_valid(gemm(4096, 4096, 4100, "fp8", "rc"), "sm_90a"), 0u);  // rows 4-byte aligned only
  EXPECT_GT(count_valid(gemm(4096, 4096, 4096, "fp16", "rc"), "sm_90a"), 0u);
}

// gemm_mma_cluster's launches: gridDim.y is whole clusters, every K slice holds k tiles, one wave
// of blocks at most, and the config exists only for outputs whose tiles leave SMs idle (none at
// 4096^3) and only where clusters do (sm_90 on).
TEST(GemmFamily, ClusterSplitKLaunchesWholeClustersOfNonEmptySlicesInOneWave) {
  const KernelFamily& family = find_family("gemm");
  const SweepConfig config =
      parse_family_config(family, *find_embedded("configs/gemm_mma_cluster.json"), "configs/gemm_mma_cluster.json");
  auto valid = [&](const Problem& p, const char* arch) {
    ArchFacts facts = arch_facts_offline(arch);
    facts.sm_count = 132;
    std::vector<Candidate> out;
    for (Candidate& c : enumerate(config, family.context(p, facts), family.placeholders(p)).candidates)
      if (c.valid) out.push_back(std::move(c));
    return out;
  };
  for (const Problem& p : {gemm(64, 64, 32768, "fp16", "rr"), gemm(77, 96, 20000, "bf16", "cc"),
                           gemm(128, 32, 65536, "fp8", "rc"), gemm(32, 96, 16384, "fp32", "cr")}) {
    const std::vector<Candidate> cands = valid(p, "sm_90a");
    EXPECT_GT(cands.size(), 20u) << describe(p);
    std::set<int64_t> cluster_sizes;
    for (const Candidate& c : cands) {
      const int64_t ck = c.params.at("CLUSTER_K"), splits = c.launch.grid[1], blocks = c.launch.grid[0];
      const int64_t k_tiles = (p.dims.at("K") + c.params.at("BLOCK_K") - 1) / c.params.at("BLOCK_K");
      const int64_t slice = (k_tiles + splits - 1) / splits;
      cluster_sizes.insert(ck);
      EXPECT_EQ(splits % ck, 0) << c.kernel_name;
      EXPECT_GE(slice, 2) << c.kernel_name;
      EXPECT_LT(slice * (splits - 1), k_tiles) << c.kernel_name << ": the last slice would be empty";
      EXPECT_LE(blocks * splits, 132 * c.params.at("BLOCKS_PER_SM")) << c.kernel_name;
      EXPECT_NE(c.kernel_name.find("ktune_gemm_mma_cluster<"), std::string::npos) << c.kernel_name;
    }
    EXPECT_EQ(cluster_sizes, (std::set<int64_t>{2, 4, 8})) << describe(p);
  }
  EXPECT_TRUE(valid(gemm(4096, 4096, 4096, "fp16", "rr"), "sm_90a").empty());
  EXPECT_EQ(config.min_arch, 90);  // the sweeps skip it before sm_90 (the kernel has no clusters there)
}

// The worker compiles these on the GPU machine: catch a broken fp8 helper here, offline.
TEST(GemmFamily, Fp8HelperKernelsCompile) {
  auto source = find_embedded("kernels/util.cu");
  ASSERT_TRUE(source.has_value());
  NvrtcCompiler compiler("");
  for (const char* name : {"ktune_fill_normal<__nv_fp8_e4m3>", "ktune_to_fp32<__nv_fp8_e4m3>",
                           "ktune_compare<__nv_bfloat16>"}) {
    CompileRequest request;
    request.source_name = "kernels/util.cu";
    request.source_text = std::string(*source);
    request.name_expression = name;
    request.arch = "sm_90a";
    const CompileInfo info = compiler.compile(request);
    EXPECT_TRUE(info.ok) << name << "\n" << info.log;
  }
}

// The schema is what the rest of ktune knows of a family: shapes are written in its order, suite
// keys and flags come from its names, and `ktune families` lists it.
TEST(GemmFamily, SchemaDrivesShapesAndTheListing) {
  const ProblemSchema schema = find_family("gemm").schema();
  ASSERT_EQ(schema.dims.size(), 3u);
  EXPECT_EQ(schema.dims[0].name + schema.dims[1].name + schema.dims[2].name, "MNK");
  ASSERT_EQ(schema.options.size(), 2u);
  EXPECT_EQ(schema.options[0].name, "layout");
  EXPECT_EQ(schema.options[0].default_value, "rr");
  EXPECT_EQ(describe(gemm(16, 32, 64, "bf16", "cr")), "gemm 16x32x64 bf16 cr");
  EXPECT_EQ(dim_columns({gemm(1, 2, 3, "fp16", "rr")}), (std::vector<std::string>{"M", "N", "K"}));
  Problem bare{"gemm", {{"M", 8}, {"N", 8}, {"K", 8}}, "fp16", {}};
  complete_options(bare);
  EXPECT_EQ(bare.option("layout"), "rr");
  // scaling came after problems were stored: at its default ("tensor") a problem leaves it out, so
  // keys and tables from before it name the same problems; "block" is written out.
  EXPECT_EQ(schema.options[1].name, "scaling");
  EXPECT_TRUE(schema.options[1].left_out_at_default);
  EXPECT_FALSE(bare.options.count("scaling"));
  Problem tensor{"gemm", {{"M", 8}, {"N", 8}, {"K", 8}}, "fp8", {{"layout", "rc"}, {"scaling", "tensor"}}};
  complete_options(tensor);
  EXPECT_EQ(tensor.options, (Options{{"layout", "rc"}}));
  EXPECT_NO_THROW(check_problem(tensor));
  Problem block{"gemm", {{"M", 8}, {"N", 8}, {"K", 8}}, "fp8", {{"layout", "rc"}, {"scaling", "block"}}};
  complete_options(block);
  EXPECT_NO_THROW(check_problem(block));
  EXPECT_EQ(describe(block), "gemm 8x8x8 fp8 rc block");
  EXPECT_EQ(option_columns({bare}), (std::vector<std::string>{"layout"}));
  EXPECT_EQ(option_columns({bare, block}), (std::vector<std::string>{"layout", "scaling"}));
  // Block scales are fp8's alone.
  Problem fp16_block{"gemm", {{"M", 8}, {"N", 8}, {"K", 8}}, "fp16", {{"layout", "rc"}, {"scaling", "block"}}};
  EXPECT_THROW(check_problem(fp16_block), ConfigError);

  FILE* pipe = popen(KTUNE_BINARY " families 2>&1", "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << out;
  for (const char* line : {"gemm: ", "  M ", "  layout ", "(default rr)", "configs/gemm_wgmma.json"})
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
}

}  // namespace
}  // namespace ktune
