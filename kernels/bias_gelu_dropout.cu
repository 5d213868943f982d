// bias_gelu_dropout.cu — Y = dropout(GELU(X + bias)) over a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16), bias (cols elements) broadcast over the rows: the epilogue of a
// transformer's first MLP linear layer in training, fused so the tensor is read once and written
// once. Math in fp32, rounded once to T:
//
//   z = float(x) + float(bias[col])
//   g = z * 0.5 * (1 + erf(z / sqrt(2)))              exact GELU, PyTorch's default formula
//   y = keep ? g * (1 / (1 - p)) : 0
// with 0.5 * (1 + erf(z / sqrt 2)) = Phi(z), the normal CDF, computed by normal_cdf.cuh rather
// than from erff: branch-free, half the instructions, and without 1 + erf's cancellation for
// negative z (its accuracy is stated there and tested on the host).
//
// The dropout mask (the rule ktune's reference and host tests implement on their own):
//   element i (flat index, row * cols + col) takes 16-bit half (i % 8) of
//     Philox4x32-10(counter = {lo32(i / 8), hi32(i / 8), 0, 0}, key = {lo32(seed), hi32(seed)})
//   (cuRAND's curand_Philox4x32_10), half h being (word (h / 2) >> (16 * (h % 2))) & 0xffff with
//   the words in the order x, y, z, w (so elements 8g, 8g+1 take the low and high halves of x),
//   and is kept iff
//     half >= threshold16,  threshold16 = (uint32) floor(p * 2^16)
//   with p as the float the kernel is passed (p * 2^16 is exact in fp32: a power-of-two scale).
//   So an element is dropped with probability threshold16 / 2^16, which is within 2^-16 of p (at
//   or below it); the same for every dtype. 16 bits an element let one Philox call serve eight
//   elements, halving the generator's share of the instructions (FlashAttention-2's dropout
//   likewise spends only 8 bits an element). The mask depends on (seed, i) alone: never on the
//   block size, vector width, grid or dtype.
//
// Work is done in chunks of CHUNK = max(V, 8) = 8 consecutive elements (V = VEC_BYTES / sizeof(T)
// is at most 8): one Philox call per chunk, none of its bits wasted. A chunk of narrower vectors
// (V < 8: fp32 at 16 bytes, or a narrow VEC_BYTES) is 8 / V vectors that may span rows. Within a
// chunk elements go in pairs, the pair that shares a Philox word: for the 2-byte types also one
// 32-bit word of data, converted to and from fp32 by one paired instruction each way. The last
// n % CHUNK elements are done one at a time by the first threads of block 0.
//
// X and Y are read and written as vectors of the flat tensor: chunk c is elements 8c .. 8c+7, so
// its vectors are aligned (X and Y start 256-byte aligned) wherever the rows begin. Only the bias
// looks at rows, by column = flat index % cols, computed once per thread and then advanced with
// wrap-around. It is fetched either as aligned vectors (GATHER_BIAS 0: a row must be whole
// vectors, so a vector's bias never crosses a row) or gathered per chunk at any column
// (GATHER_BIAS 1: so an odd row length keeps 16-byte X and Y vectors; see gather_bias). The bias
// is only cols elements, read again by every row, so its loads are expected to hit L1 or L2.
//
// Launch: BLOCK threads; grid cdiv(cdiv(n, CHUNK), BLOCK * ITEMS) blocks, or with GRID_STRIDE a
// fixed number of blocks (BLOCKS_PER_SM per SM) that stride over the tensor.
//
// Tunables:
//   VEC_BYTES     bytes per load and store of X and Y (2, 4, 8, 16), at least sizeof(T).
//   GATHER_BIAS   0: bias loaded as aligned vectors of VEC_BYTES, which needs (cols * sizeof(T)) %
//                 VEC_BYTES == 0; 1: bias gathered per chunk by column, any cols, a few more
//                 instructions a chunk (for the rows aligned loads cannot serve).
//   ITEMS         chunks per thread per step, all loaded before any is computed: bytes in flight.
//   BLOCK         threads per block.
//   GRID_STRIDE   0: one step per block, as many blocks as steps; 1: a persistent grid.
//   STREAMING     1: X loads and Y stores with the evict-first hint (ld.global.cs / st.global.cs);
//                 bias is loaded plainly either way, since every row reads it again.
//
// Arguments: const T* x, const T* bias, T* y, long long rows, int cols, float p (0 <= p < 1),
// unsigned long long seed.
#include <curand_philox4x32_x.h>

#include "elementwise.cuh"
#include "normal_cdf.cuh"

namespace bgd_detail {

using namespace elementwise;

// The eight 16-bit halves of Philox group g (flat elements 8g .. 8g+7), as four words.
__device__ __forceinline__ uint4 philox_group(unsigned long long g, unsigned long long seed) {
  return curand_Philox4x32_10(make_uint4((unsigned)g, (unsigned)(g >> 32), 0u, 0u),
                              make_uint2((unsigned)seed, (unsigned)(seed >> 32)));
}
__device__ __forceinline__ unsigned word(const uint4& r, int k) {
  return k == 0 ? r.x : k == 1 ? r.y : k == 2 ? r.z : r.w;
}
// Half h (0..7) of a group: the low half of word h / 2 for even h, its high half for odd h.
__device__ __forceinline__ unsigned element_half(const uint4& r, int h) {
  return (word(r, h / 2) >> (16 * (h % 2))) & 0xffffu;
}

// Whether the two elements that share a Philox word (its low half, then its high half) are kept:
// half >= threshold16, compared in the word's top 16 bits against threshold16 << 16 so that
// neither half needs extracting (the high half as it stands, the low one shifted up).
struct KeepPair {
  bool lo, hi;
};
__device__ __forceinline__ KeepPair keeps_pair(unsigned word, unsigned threshold_hi) {
  return {(word << 16) >= threshold_hi, word >= threshold_hi};
}

// GELU(z) / (1 - p), the value of a kept element: z * scale * Phi(z), Phi(z) = 0.5 * (1 + erf(z /
// sqrt 2)) from normal_cdf.cuh (branch-free, and accurate for negative z too), scale = 1 / (1 - p).
__device__ __forceinline__ float scaled_gelu(float z, float scale) {
  return (z * scale) * normal_cdf::normal_cdf(z);
}

// e % cols: a 32-bit remainder (a dozen instructions) where e fits in 32 bits, the 64-bit routine
// (several times longer) only beyond; taken once per thread, not per chunk.
__device__ __forceinline__ unsigned column_of(unsigned long long e, unsigned cols) {
  if (e <= 0xffffffffull) return (unsigned)e % cols;
  return (unsigned)(e % cols);
}
// col + by, wrapped into [0, cols) (both below cols, so one subtraction does it).
__device__ __forceinline__ unsigned advance_column(unsigned col, unsigned by, unsigned cols) {
  col += by;
  return col >= cols ? col - cols : col;
}

// The bias of the chunk that starts at column col (elements col, col + 1, ... of bias, wrapping to
// column 0 where the row ends first), as raw bits in chunk order, for GATHER_BIAS: the chunk's
// columns need not be aligned to anything. A chunk well inside its row (all but about 10 / cols
// of them) reads its bias at constant offsets from one address: for the 2-byte types five aligned
// 32-bit words, shifted by half a word where col is odd (one funnel shift a pair), for fp32
// eight words: with the test that picks this path, about 14 PTX instructions a chunk more than
// one aligned 16-byte load, under 2 an element. A chunk near the row's end takes its elements one
// at a time, advancing the column with wrap-around (about 57 instructions a chunk, but rare).
template <typename T, int CHUNK, typename P>
__device__ __forceinline__ void gather_bias(const T* bias, unsigned col, unsigned cols, P* out) {
  using E = typename Raw<sizeof(T)>::type;  // one element's bits
  const E* b = reinterpret_cast<const E*>(bias);
  E* e = reinterpret_cast<E*>(out);
  if constexpr (sizeof(T) == 2) {
    static_assert(sizeof(P) == 4, "a pair of 2-byte elements is one word");
    // Words col / 2 .. col / 2 + CHUNK / 2 hold elements up to col + CHUNK + 1.
    if (col + CHUNK + 2 <= cols) {
      const unsigned* w = reinterpret_cast<const unsigned*>(bias) + col / 2;
      unsigned words[CHUNK / 2 + 1];
#pragma unroll
      for (int j = 0; j <= CHUNK / 2; ++j) words[j] = w[j];
      const unsigned shift = 16 * (col & 1);  // an odd column is the high half of its word
#pragma unroll
      for (int q = 0; q < CHUNK / 2; ++q) out[q] = __funnelshift_r(words[q], words[q + 1], shift);
      return;
    }
  } else if (col + CHUNK <= cols) {
#pragma unroll
    for (int j = 0; j < CHUNK; ++j) e[j] = b[col + j];
    return;
  }
#pragma unroll
  for (int j = 0; j < CHUNK; ++j) {
    e[j] = b[col];
    col = advance_column(col, 1, cols);
  }
}

}  // namespace bgd_detail

template <typename T, int VEC_BYTES, int GATHER_BIAS, int ITEMS, int BLOCK, int GRID_STRIDE, int STREAMING>
__global__ void __launch_bounds__(BLOCK)
    ktune_bias_gelu_dropout(const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ y, long long rows,
                            int cols, float p, unsigned long long seed) {
  using namespace bgd_detail;
  using R = typename Raw<VEC_BYTES>::type;
  using P = typename PairBits<T>::type;  // two elements' bits
  constexpr int V = VEC_BYTES / sizeof(T);
  static_assert(V >= 1 && VEC_BYTES % sizeof(T) == 0, "a vector holds whole elements");
  constexpr int CHUNK = 8;  // max(V, 8): V is at most 16 bytes / 2 = 8, so always one Philox group
  static_assert(CHUNK % V == 0, "a chunk holds whole vectors");
  constexpr int VECS = CHUNK / V;  // vectors per chunk
  constexpr int PAIRS = CHUNK / 2;  // pair q takes Philox word q

  const unsigned threshold16 = __float2uint_rz(p * 65536.0f);
  const unsigned threshold_hi = threshold16 << 16;
  const float scale = 1.0f / (1.0f - p);
  const long long n = rows * cols;
  const long long chunks = n / CHUNK;
  const R* xv = reinterpret_cast<const R*>(x);
  const R* bv = reinterpret_cast<const R*>(bias);
  R* yv = reinterpret_cast<R*>(y);

  constexpr long long kStep = (long long)BLOCK * ITEMS;  // chunks per block per step
  const long long stride = GRID_STRIDE ? (long long)gridDim.x * kStep : chunks;
  // The first column of a thread's chunk: one remainder per thread, then advanced by constants,
  // the columns BLOCK chunks span from item to item and the grid's stride from step to step.
  const long long first = blockIdx.x * kStep + threadIdx.x;
  unsigned col = column_of((unsigned long long)first * CHUNK, cols);
  const unsigned item_cols = (unsigned)(BLOCK * CHUNK) % (unsigned)cols;
  const unsigned step_cols = GRID_STRIDE ? column_of((unsigned long long)stride * CHUNK, cols) : 0u;
  for (long long base = blockIdx.x * kStep; base < chunks; base += stride) {
    alignas(16) P rx[ITEMS][PAIRS];
    alignas(16) P rb[ITEMS][PAIRS];
    unsigned item_col = col;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long c = base + (long long)i * BLOCK + threadIdx.x;
      if (c < chunks) {
#pragma unroll
        for (int k = 0; k < VECS; ++k) reinterpret_cast<R*>(rx[i])[k] = load_vec<STREAMING>(xv + c * VECS + k);
        if constexpr (GATHER_BIAS) {
          gather_bias<T, CHUNK>(bias, item_col, cols, rb[i]);
        } else {
          // The column of the chunk's vector k: a chunk of several vectors may wrap into the next
          // row (or, for cols < 8, rows), but never by more than one row a vector, since V
          // divides cols.
          unsigned vc = item_col;
#pragma unroll
          for (int k = 0; k < VECS; ++k) {
            reinterpret_cast<R*>(rb[i])[k] = bv[vc / V];
            if (k + 1 < VECS) vc = advance_column(vc, V, cols);
          }
        }
      }
      item_col = advance_column(item_col, item_cols, cols);
    }
    col = advance_column(col, step_cols, cols);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long c = base + (long long)i * BLOCK + threadIdx.x;
      if (c < chunks) {
        const uint4 r = philox_group((unsigned long long)c, seed);
        alignas(16) P ry[PAIRS];
#pragma unroll
        for (int q = 0; q < PAIRS; ++q) {
          const float2 xf = unpack_pair<T>(rx[i][q]), bf = unpack_pair<T>(rb[i][q]);
          // Both values first, then the selects: written inside the conditionals, the compiler
          // branches around each element's GELU instead, and the branches diverge.
          const float lo = scaled_gelu(xf.x + bf.x, scale), hi = scaled_gelu(xf.y + bf.y, scale);
          const KeepPair keep = keeps_pair(word(r, q), threshold_hi);
          ry[q] = pack_pair<T>(make_float2(keep.lo ? lo : 0.0f, keep.hi ? hi : 0.0f));
        }
#pragma unroll
        for (int k = 0; k < VECS; ++k) store_vec<STREAMING>(yv + c * VECS + k, reinterpret_cast<const R*>(ry)[k]);
      }
    }
  }
  // The tail: the last n % CHUNK elements (with aligned bias, V < 8 alone leaves any, n being a
  // multiple of V; with gathered bias any row length may), one per thread of the first block.
  const long long t = chunks * CHUNK + threadIdx.x;
  if (blockIdx.x == 0 && t < n) {
    const bool keep = element_half(philox_group((unsigned long long)t / 8, seed), (int)(t % 8)) >= threshold16;
    const float v = scaled_gelu(to_float(x[t]) + to_float(bias[t % cols]), scale);
    y[t] = from_float<T>(keep ? v : 0.0f);
  }
}
