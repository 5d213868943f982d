// The attention family on the GPU: every default sweep's candidates (spread over every value of
// every tunable) against the fp32 reference on ragged sequence lengths (not multiples of any
// block), grouped-query heads, causal masks, both layouts, every head_dim and dtype, split KV and
// persistent grids with more tiles than SMs, each on fresh random inputs with poisoned outputs;
// every baseline runs. And a planted kernel whose causal mask is off by one key is rejected, while
// the same kernel with the mask right passes.
#include <fmt/format.h>

#include "families/family.hpp"
#include "family_test_support.hpp"
#include "gpu_test_support.hpp"

namespace ktune {
namespace {

Problem attention(int64_t batch, int64_t heads, int64_t kv_heads, int64_t seqlen, int64_t seqlen_kv, int64_t head_dim,
                  bool causal, const std::string& layout, const std::string& dtype) {
  return {"attention",
          {{"batch", batch},
           {"heads", heads},
           {"kv_heads", kv_heads},
           {"seqlen", seqlen},
           {"seqlen_kv", seqlen_kv},
           {"head_dim", head_dim}},
          dtype,
          {{"causal", causal ? "yes" : "no"}, {"layout", layout}}};
}

TEST(AttentionGpu, MatchesTheReferenceOnRaggedGroupedCausalShapesEveryDtypeAndHeadDim) {
  KTUNE_REQUIRE_GPU();
  std::vector<Problem> problems;
  for (std::string dtype : {"fp16", "bf16"}) {
    problems.push_back(attention(1, 2, 2, 1, 1, 64, false, "bhsd", dtype));       // one key
    problems.push_back(attention(2, 4, 2, 100, 100, 64, true, "bhsd", dtype));    // GQA, causal, ragged
    problems.push_back(attention(1, 3, 1, 257, 300, 128, true, "bshd", dtype));   // causal below the diagonal
    problems.push_back(attention(2, 2, 2, 1, 1000, 128, false, "bhsd", dtype));   // decode: one query row
    problems.push_back(attention(1, 2, 1, 129, 129, 256, true, "bshd", dtype));   // head_dim 256
    problems.push_back(attention(1, 2, 2, 513, 77, 128, false, "bhsd", dtype));   // fewer keys than queries
    problems.push_back(attention(2, 4, 1, 5, 3001, 64, true, "bshd", dtype));     // a few rows, long KV: split
    // More tiles than SMs, so persistent grids run several tiles a block, across tile boundaries
    // (tiles of one key block among them, causal) with the next tile's first scores in flight.
    problems.push_back(attention(3, 8, 2, 1000, 1000, 128, true, "bhsd", dtype));
    problems.push_back(attention(2, 16, 16, 777, 777, 64, false, "bshd", dtype));
  }
  SweepCheck c = check_default_sweeps("attention", problems);
  EXPECT_TRUE(c.configs.count("attention_mma"));
  if (c.arch >= 90) EXPECT_TRUE(c.configs.count("attention_wgmma"));
  EXPECT_GE(c.runs, static_cast<int>(problems.size()) * 3);
  // Split KV ran (and passed) with several splits, on the decode shapes.
  int split_runs = 0;
  for (const SweepCheck::Ran& r : c.ran) split_runs += r.params.count("SPLITS") && r.params.at("SPLITS") > 1;
  EXPECT_GE(split_runs, 4);
  if (c.arch >= 90) {
    int across_tiles = 0;  // persistent attention_wgmma with two Q stages: pipelined over tiles
    for (const SweepCheck::Ran& r : c.ran)
      across_tiles += r.params.count("Q_STAGES") && r.params.at("Q_STAGES") == 2 && r.params.at("PERSISTENT") == 1;
    EXPECT_GE(across_tiles, 4);
  }
}

// One thread per query row, fp32 throughout: slow and plain, right when OFF_BY_ONE is 0. With 1,
// each row also sees the key just past the causal diagonal.
std::string naive_attention(int off_by_one) {
  return fmt::format(R"(
    #include <cuda_fp16.h>
    extern "C" __global__ void naive_attention(const __half* q, const __half* k, const __half* v, __half* o,
                                               float* lse, int batches, int heads, int kv_heads, int seqlen_q,
                                               int seqlen_kv, float scale_log2) {{
      const int D = 64;
      int row = blockIdx.x * blockDim.x + threadIdx.x, head = blockIdx.y, batch = blockIdx.z;
      if (row >= seqlen_q) return;
      int kv_head = head / (heads / kv_heads);
      const __half* qr = q + (((long long)batch * heads + head) * seqlen_q + row) * D;
      const __half* kh = k + ((long long)batch * kv_heads + kv_head) * seqlen_kv * D;
      const __half* vh = v + ((long long)batch * kv_heads + kv_head) * seqlen_kv * D;
      int last = row + seqlen_kv - seqlen_q + {0};
      if (last > seqlen_kv - 1) last = seqlen_kv - 1;
      float m = __int_as_float(0xff800000);  // -inf (NVRTC has no math.h)
      for (int j = 0; j <= last; ++j) {{
        float s = 0;
        for (int d = 0; d < D; ++d) s += __half2float(qr[d]) * __half2float(kh[j * D + d]);
        m = fmaxf(m, s * scale_log2);
      }}
      float sum = 0, acc[D];
      for (int d = 0; d < D; ++d) acc[d] = 0;
      for (int j = 0; j <= last; ++j) {{
        float s = 0;
        for (int d = 0; d < D; ++d) s += __half2float(qr[d]) * __half2float(kh[j * D + d]);
        float p = exp2f(s * scale_log2 - m);
        sum += p;
        for (int d = 0; d < D; ++d) acc[d] += p * __half2float(vh[j * D + d]);
      }}
      __half* out = o + (((long long)batch * heads + head) * seqlen_q + row) * D;
      for (int d = 0; d < D; ++d) out[d] = __float2half_rn(acc[d] / sum);
      lse[((long long)batch * heads + head) * seqlen_q + row] = (m + log2f(sum)) * 0.6931471805599453f;
    }})",
                     off_by_one);
}

TEST(AttentionGpu, ACausalMaskOffByOneKeyIsRejected) {
  KTUNE_REQUIRE_GPU();
  const Problem p = attention(1, 2, 1, 70, 70, 64, true, "bhsd", "fp16");
  Launch l;
  l.block[0] = 64;
  l.grid[0] = 2;
  l.grid[1] = 2;
  l.grid[2] = 1;
  // The control: the same kernel with the mask right passes, so the rejection below is the mask's.
  const PlantedRun right = run_planted(p, naive_attention(0), "naive_attention", l);
  EXPECT_EQ(right.disposition, Disposition::passed) << right.reason;
  expect_planted_rejected(p, naive_attention(1), "naive_attention", l);
}

}  // namespace
}  // namespace ktune
