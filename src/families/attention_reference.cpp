#include "families/attention_reference.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/check.hpp"
#include "families/elementwise.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// The bound on one batch of scores: the reference's fp32 ones and the unfused baseline's.
constexpr int64_t kScoreBudget = int64_t{2} << 30;

cudaDataType_t cuda_type(const std::string& dtype) {
  if (dtype == "fp16") return CUDA_R_16F;
  if (dtype == "bf16") return CUDA_R_16BF;
  return CUDA_R_32F;
}

// How one of the two GEMMs runs: operand and result types, and cuBLAS's compute type.
struct GemmTypes {
  cudaDataType_t in, out;
  cublasComputeType_t compute;
};

int64_t type_bytes(cudaDataType_t t) { return t == CUDA_R_32F ? 4 : 2; }

// One batch of heads, unfused: S = Q·Kᵀ (qk), the softmax over S in place, O = P·V (pv; P in
// S's type). cuBLAS is column-major: a row-major [rows x d] operand with row stride ld is its
// column-major transpose, so S (row-major [seqlen_q x seqlen_kv]) is computed as Sᵀ = K·Qᵀ (K
// transposed, Qᵀ as stored) and O (row-major, Q's row stride) as Oᵀ = Vᵀ·Pᵀ (both as stored).
void unfused_batch(GpuContext& gpu, const AttentionShape& s, const HeadBatch& b, GemmTypes qk, GemmTypes pv,
                   const void* q, const void* k, const void* v, void* scores, void* o, float* lse, CUfunction softmax,
                   bool fp64_softmax) {
  const int sq = static_cast<int>(s.seqlen_q), skv = static_cast<int>(s.seqlen_kv), d = static_cast<int>(s.head_dim);
  const int64_t rq = s.q_strides().row, rk = s.kv_strides().row;
  const float one = 1.0f, zero = 0.0f;
  const auto* qp = static_cast<const char*>(q) + b.q_offset * type_bytes(qk.in);
  const auto* kp = static_cast<const char*>(k) + b.kv_offset * type_bytes(qk.in);
  const auto* vp = static_cast<const char*>(v) + b.kv_offset * type_bytes(pv.in);
  auto* op = static_cast<char*>(o) + b.q_offset * type_bytes(pv.out);
  KTUNE_CUBLAS(cublasGemmStridedBatchedEx(gpu.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, skv, sq, d, &one, kp, qk.in, rk,
                                          b.kv_stride, qp, qk.in, rq, b.q_stride, &zero, scores, qk.out, skv,
                                          int64_t{sq} * skv, static_cast<int>(b.count), qk.compute,
                                          CUBLAS_GEMM_DEFAULT));
  long long cols = skv, lse_offset = b.lse_offset, lse_stride = b.lse_stride;
  int seqlen_q = sq, causal = s.causal ? 1 : 0, diagonal = skv - sq;
  double scale64 = s.scale;
  float scale32 = s.scale;
  void* scale = fp64_softmax ? static_cast<void*>(&scale64) : static_cast<void*>(&scale32);
  void* args[] = {&scores, &lse, &cols, &seqlen_q, &causal, &diagonal, scale, &lse_offset, &lse_stride};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = b.count * sq;
  gpu.launch(softmax, l, args);
  KTUNE_CUBLAS(cublasGemmStridedBatchedEx(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, d, sq, skv, &one, vp, pv.in, rk,
                                          b.kv_stride, scores, qk.out, skv, int64_t{sq} * skv, &zero, op, pv.out, rq,
                                          b.q_stride, static_cast<int>(b.count), pv.compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace

int64_t heads_within(const AttentionShape& s, int64_t score_bytes, int64_t budget_bytes) {
  return std::max<int64_t>(1, budget_bytes / (s.seqlen_q * s.seqlen_kv * score_bytes));
}

std::vector<HeadBatch> head_batches(const AttentionShape& s, int64_t max_count) {
  const int64_t g = s.group(), d = s.head_dim, sq = s.seqlen_q, skv = s.seqlen_kv;
  std::vector<HeadBatch> out;
  // Member j of every group over `n` groups whose strides are uniform, cut into batches.
  auto add = [&](HeadBatch whole, int64_t n) {
    for (int64_t first = 0; first < n; first += max_count) {
      HeadBatch b = whole;
      b.count = std::min(max_count, n - first);
      b.q_offset += first * b.q_stride;
      b.kv_offset += first * b.kv_stride;
      b.lse_offset += first * b.lse_stride;
      out.push_back(b);
    }
  };
  if (!s.bshd) {
    // [b, h, s, d]: (batch, kv head) pairs are uniformly strided across batches too.
    for (int64_t j = 0; j < g; ++j)
      add({j * sq * d, 0, j * sq, 0, g * sq * d, skv * d, g * sq}, s.batch * s.kv_heads);
  } else {
    // [b, s, h, d]: heads are d apart within a batch, batches a whole sequence apart.
    for (int64_t batch = 0; batch < s.batch; ++batch)
      for (int64_t j = 0; j < g; ++j)
        add({batch * sq * s.heads * d + j * d, batch * skv * s.kv_heads * d, (batch * s.heads + j) * sq, 0, g * d, d,
             g * sq},
            s.kv_heads);
  }
  return out;
}

void attention_reference(GpuContext& gpu, const AttentionShape& s, const std::string& dtype, const void* q,
                         const void* k, const void* v, float* o_ref, float* lse_ref) {
  if (s.seqlen_q * s.seqlen_kv * 4 > kScoreBudget)
    throw Error(fmt::format("the attention reference holds one head's fp32 scores ({} x {}): more than {} GiB",
                            s.seqlen_q, s.seqlen_kv, kScoreBudget >> 30));
  // QKᵀ on the tensor cores from the inputs as stored: products of two fp16 (bf16) values are
  // exact in fp32, and the fp32 sums over head_dim terms err by about 1e-6 of a score, far below
  // any output's rounding; it costs a fraction of an fp32 GEMM, which the long sequences need
  // (a 16384-token head is 69 GFLOP a GEMM). P·V, whose P is fp32, in pedantic fp32.
  cuda::DeviceBuffer vf(s.kv_elements() * 4);
  gpu.to_fp32(v, dtype, vf.as<float>(), s.kv_elements());
  const int64_t per_batch = heads_within(s, 4, kScoreBudget);
  const std::vector<HeadBatch> batches = head_batches(s, per_batch);
  int64_t most = 0;
  for (const HeadBatch& b : batches) most = std::max(most, b.count);
  cuda::DeviceBuffer scores(most * s.seqlen_q * s.seqlen_kv * 4);
  CUfunction softmax = gpu.kernel("kernels/reference.cu", "ktune_ref_attention_softmax");
  for (const HeadBatch& b : batches)
    unfused_batch(gpu, s, b, {cuda_type(dtype), CUDA_R_32F, CUBLAS_COMPUTE_32F},
                  {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC}, q, k, vf.get(), scores.get(), o_ref, lse_ref,
                  softmax, /*fp64_softmax=*/true);
  KTUNE_CUDA(cudaGetLastError());
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
}

UnfusedAttention::UnfusedAttention(GpuContext& gpu, const AttentionShape& s, const std::string& dtype)
    : gpu_(gpu), shape_(s), dtype_(dtype),
      batches_(head_batches(s, heads_within(s, elementwise::element_bytes(dtype), kScoreBudget))),
      scores_(static_cast<size_t>(workspace_bytes(s, dtype))),
      softmax_(gpu.kernel("kernels/reference.cu",
                          fmt::format("ktune_unfused_attention_softmax<{}>", elementwise::element_name(dtype)))) {}

int64_t UnfusedAttention::workspace_bytes(const AttentionShape& s, const std::string& dtype) {
  const int64_t eb = elementwise::element_bytes(dtype);
  const int64_t per_batch = std::min(heads_within(s, eb, kScoreBudget), s.batch * s.kv_heads);
  return per_batch * s.seqlen_q * s.seqlen_kv * eb;
}

void UnfusedAttention::run(const void* q, const void* k, const void* v, void* o, float* lse) {
  for (const HeadBatch& b : batches_)
    unfused_batch(gpu_, shape_, b, {cuda_type(dtype_), cuda_type(dtype_), CUBLAS_COMPUTE_32F},
                  {cuda_type(dtype_), cuda_type(dtype_), CUBLAS_COMPUTE_32F}, q, k, v, scores_.get(), o, lse, softmax_,
                  /*fp64_softmax=*/false);
}

std::string UnfusedAttention::name() const {
  return fmt::format("unfused cuBLAS: {} GEMMs (fp32 accumulate), fp32-math softmax, S and P in {}", dtype_, dtype_);
}

}  // namespace ktune
