// attention_common.cuh — what the attention kernels (attention_mma.cu, attention_wgmma.cu) share:
// the online softmax's per-row step, the mask, and packing probabilities as 16-bit MMA operands.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "fast_exp2.cuh"

namespace attention_common {

template <bool B>
struct Flag {
  static constexpr bool value = B;
};

// A wgmma N (keys of a block's products) as a type, for lambdas that take it as an argument.
template <int N>
struct Width {
  static constexpr int value = N;
};

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }

// NVRTC has no math.h, so no INFINITY.
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// Whether key `col` is hidden from query `row`: past the keys, or (CAUSAL) past the row's
// bottom-right-aligned diagonal (query i sees keys j <= i + diagonal, diagonal = seqlen_kv - seqlen_q).
template <int CAUSAL>
__device__ __forceinline__ bool hidden(int row, int col, int seqlen_kv, int diagonal) {
  return col >= seqlen_kv || (CAUSAL && col > row + diagonal);
}

// One row's online-softmax step for a new block of scores whose (unscaled, quad-reduced) maximum
// is `block_max`: updates the running maximum (kept scaled by scale_log2) and returns the factor
// that rescales what the row has summed so far; `base` is what this block's scaled scores are
// exponentiated against. A row that has seen only hidden keys keeps -inf as its maximum and
// exponentiates against 0, so its probabilities are exp2(-inf) = 0 rather than NaN.
__device__ __forceinline__ float online_step(float& row_max, float block_max, float scale_log2, float& base) {
  const float new_max = fmaxf(row_max, block_max * scale_log2);
  base = new_max == neg_inf() ? 0.0f : new_max;
  const float rescale = fast_exp2(row_max - base);
  row_max = new_max;
  return rescale;
}

// The natural-log logsumexp of a finished row: row_max (log2 units, scaled) plus log2 of its sum.
__device__ __forceinline__ float row_lse(float row_max, float sum) {
  return sum > 0.0f ? (row_max + __log2f(sum)) * 0.6931471805599453f : neg_inf();
}

// Two floats as one 32-bit register of T pairs (a 16-bit MMA operand).
template <typename T>
__device__ __forceinline__ unsigned pack2(float lo, float hi);
template <>
__device__ __forceinline__ unsigned pack2<__half>(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}
template <>
__device__ __forceinline__ unsigned pack2<__nv_bfloat16>(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<unsigned*>(&h);
}

// With the lane `dist` away (its pair's other half): the lower lane of the pair gives `hi` and
// takes the upper one's `lo` in its place; the upper gives `lo` and takes the lower's `hi`.
__device__ __forceinline__ void pair_exchange(unsigned& lo, unsigned& hi, bool upper, int dist) {
  const unsigned got = __shfl_xor_sync(0xffffffffu, upper ? lo : hi, dist);
  (upper ? lo : hi) = got;
}

// A 4x4 transpose of 32-bit values among the four lanes of a quad (lanes 4i to 4i + 3; q is the
// lane's index in it): lane q's x[k] becomes lane k's x[q]. Neighbouring lanes swap the
// off-diagonal halves of their 2x2 blocks, then lanes two apart swap whole blocks. Every lane of
// the warp must take part.
__device__ __forceinline__ void quad_transpose(unsigned (&x)[4], int q) {
  pair_exchange(x[0], x[1], q & 1, 1);
  pair_exchange(x[2], x[3], q & 1, 1);
  pair_exchange(x[0], x[2], q & 2, 2);
  pair_exchange(x[1], x[3], q & 2, 2);
}

// Element strides of the attention tensors in either layout (src/families/attention_shape.hpp).
struct Strides {
  long long batch, head, row;
};
template <int BSHD, int HEAD_DIM>
__device__ __forceinline__ Strides strides(int heads, int seqlen) {
  return BSHD ? Strides{(long long)seqlen * heads * HEAD_DIM, HEAD_DIM, (long long)heads * HEAD_DIM}
              : Strides{(long long)heads * seqlen * HEAD_DIM, (long long)seqlen * HEAD_DIM, HEAD_DIM};
}

}  // namespace attention_common
