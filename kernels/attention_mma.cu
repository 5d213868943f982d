// attention_mma.cu — FlashAttention-2-style forward attention for sm_80 and later, on mma.sync.
//
//   O = softmax(scale · Q·Kᵀ, masked) · V per (batch, head), and LSE, the natural-log logsumexp
//   of each row's scaled, masked scores (what a backward pass needs). fp32 accumulation and
//   softmax; O rounded to T (__half or __nv_bfloat16).
//
// Shapes (src/families/attention_shape.hpp): Q and O [batch, heads, seqlen_q, HEAD_DIM], K and V
// [batch, kv_heads, seqlen_kv, HEAD_DIM] when BSHD = 0; [batch, seqlen, heads, HEAD_DIM] when
// BSHD = 1. Query head h reads K/V head h / (heads / kv_heads) (grouped-query attention). LSE is
// [batch, heads, seqlen_q] fp32. CAUSAL masks are bottom-right aligned: query i sees keys
// j <= i + seqlen_kv - seqlen_q; a row that sees no key gets O = 0 and LSE = -inf.
//
// Launch: grid (cdiv(seqlen_q * group, BLOCK_M) * SPLITS, heads / group, batch) with group =
// heads / kv_heads if PACK_GQA else 1, WARPS * 32 threads, and
// (BLOCK_M + 4 * BLOCK_N) * HEAD_DIM * sizeof(T) bytes of dynamic shared memory. Pointers 16-byte
// aligned. Any seqlen_q, seqlen_kv >= 1.
//
// Arguments: const T* q, const T* k, const T* v, T* o, float* lse, int batch (the grid's z here),
// int heads, int kv_heads, int seqlen_q, int seqlen_kv, float scale_log2 (the softmax scale times
// log2(e): folded into the scores once, so every exponential is one exp2), float* partials and
// unsigned* arrivals (split-KV's workspace: batch * heads * seqlen_q * SPLITS * (HEAD_DIM + 1)
// floats, and one counter per query tile, zero at launch and left zero).
//
// Split KV (SPLITS > 1: decoding, a few query rows over a long sequence, where one block per
// query tile leaves most of the GPU idle): SPLITS blocks share a query tile, each taking a
// contiguous run of its key blocks and writing its normalized O and logsumexp to the workspace;
// the last of them to finish (an arrival counter) combines the partial results, weighting each
// by exp(its LSE - the rows' LSE).
//
// Packed groups (PACK_GQA = 1, grouped-query attention): a block's rows are the (query row, head)
// pairs of every query head that shares one K/V head, row-major (packed row i is query row
// i / group of the group's head i % group), so K and V stream from memory once per group rather
// than once per query head. Decoding with grouped heads is bound by those reads: unpacked, the
// group's heads re-read the same K/V from L2 at four to eight times the DRAM traffic.
//
// Design. A block owns BLOCK_M query rows of one head; each warp 16 · M_TILES of them, with
// their O accumulators and running max and sum in registers (the online softmax). K and V tiles
// of BLOCK_N rows stream through a two-stage cp.async ring: the next block's tiles load while
// this one's QKᵀ, softmax and PV run. Tiles are XOR-swizzled in 16-byte chunks so each ldmatrix
// phase hits 8 different bank groups. The scores' accumulator fragments are re-packed in
// registers as the A operand of PV (the m16n8k16 accumulator layout of two adjacent n8 tiles is
// the A layout of one k16 step), so P never touches shared memory. Key blocks that no row of
// the tile masks (off the causal diagonal, inside seqlen_kv) run without the mask arithmetic;
// only the diagonal and ragged-edge blocks pay for it. Blocks are issued in reverse order of
// their row range, so under a causal mask the longest rows start first and the short ones fill
// the tail.
#include "attention_common.cuh"
#include "mma_sync.cuh"

namespace attention_mma_detail {

using namespace mma_sync;
using namespace attention_common;

// Byte offset of 16-byte chunk `chunk` of tile row `row` (CPR chunks per row, CPR >= 8): the
// chunk index is XORed with the row's low three bits, within its 128-byte line.
template <int CPR>
__device__ __forceinline__ unsigned swizzled(int row, int chunk) {
  return static_cast<unsigned>((row * CPR + (chunk ^ (row & 7))) * 16);
}

// Copies rows [0, ROWS) of a tile (HEAD_DIM elements a row; row r starts at row_ptr(r) in global
// memory) into shared memory at `dst`; rows at or past `valid_rows` are zero-filled.
template <typename T, int ROWS, int HEAD_DIM, int THREADS, typename RowPtr>
__device__ __forceinline__ void load_rows(unsigned dst, RowPtr row_ptr, int valid_rows) {
  constexpr int CPR = HEAD_DIM * sizeof(T) / 16;
  constexpr int CHUNKS = ROWS * CPR;
#pragma unroll
  for (int it = 0; it < cdiv(CHUNKS, THREADS); ++it) {
    const int i = it * THREADS + static_cast<int>(threadIdx.x);
    if (CHUNKS % THREADS == 0 || i < CHUNKS) {
      const int row = i / CPR, chunk = i % CPR;
      const bool valid = row < valid_rows;
      const T* p = row_ptr(valid ? row : 0) + chunk * (16 / sizeof(T));
      cp_async_16(dst + swizzled<CPR>(row, chunk), p, valid ? 16 : 0);
    }
  }
}

// load_rows of evenly spaced rows, `row_stride` elements apart from `src`.
template <typename T, int ROWS, int HEAD_DIM, int THREADS>
__device__ __forceinline__ void load_tile(unsigned dst, const T* src, long long row_stride, int valid_rows) {
  load_rows<T, ROWS, HEAD_DIM, THREADS>(dst, [&](int r) { return src + r * row_stride; }, valid_rows);
}

}  // namespace attention_mma_detail

template <typename T, int HEAD_DIM, int BLOCK_M, int BLOCK_N, int WARPS, int SPLITS, int PACK_GQA, int CAUSAL,
          int BSHD>
__global__ void __launch_bounds__(WARPS * 32)
    ktune_attention_mma(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                        T* __restrict__ o, float* __restrict__ lse, int /*batch: the grid's z*/, int heads,
                        int kv_heads, int seqlen_q, int seqlen_kv, float scale_log2, float* __restrict__ partials,
                        unsigned* __restrict__ arrivals) {
  using namespace attention_mma_detail;
  constexpr int THREADS = WARPS * 32;
  constexpr int M_TILES = BLOCK_M / (16 * WARPS);  // 16-row mma tiles per warp
  constexpr int N_TILES = BLOCK_N / 8;             // n8 tiles of a score row block
  constexpr int D_TILES = HEAD_DIM / 8;            // n8 tiles of an O row block
  constexpr int CPR = HEAD_DIM * sizeof(T) / 16;   // 16-byte chunks per tile row
  static_assert(sizeof(T) == 2, "fp16 or bf16");
  static_assert(BLOCK_M % (16 * WARPS) == 0 && M_TILES >= 1, "whole 16-row tiles per warp");
  static_assert(BLOCK_N % 16 == 0 && HEAD_DIM % 16 == 0 && CPR >= 8, "whole k16 steps, 128-byte rows");

  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned q_smem = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  constexpr unsigned TILE_N_BYTES = BLOCK_N * HEAD_DIM * sizeof(T);
  const unsigned k_smem = q_smem + BLOCK_M * HEAD_DIM * sizeof(T);  // two stages
  const unsigned v_smem = k_smem + 2 * TILE_N_BYTES;                 // two stages

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int m_blocks = gridDim.x / SPLITS;
  const int m_block = m_blocks - 1 - blockIdx.x / SPLITS;  // the longest causal rows first
  const int split = blockIdx.x % SPLITS;
  const int batch = blockIdx.z;
  // Packed rows: the block's query head (or, packed, its K/V head's group of them) and row index.
  const int group = PACK_GQA ? heads / kv_heads : 1;
  const int packed_rows = seqlen_q * group;
  const int kv_head = PACK_GQA ? blockIdx.y : blockIdx.y / (heads / kv_heads);
  const auto head_of = [&](int i) { return PACK_GQA ? blockIdx.y * group + i % group : blockIdx.y; };
  const auto row_of = [&](int i) { return PACK_GQA ? i / group : i; };
  const int m0 = m_block * BLOCK_M;  // packed rows

  const Strides qs = strides<BSHD, HEAD_DIM>(heads, seqlen_q), kvs = strides<BSHD, HEAD_DIM>(kv_heads, seqlen_kv);
  const long long q_row = qs.row, kv_row = kvs.row;
  const auto q_at = [&](int i) { return batch * qs.batch + head_of(i) * qs.head + row_of(i) * q_row; };
  const long long kv_offset = batch * kvs.batch + kv_head * kvs.head;
  const T* k_base = k + kv_offset;
  const T* v_base = v + kv_offset;

  // Key blocks this tile sees, and how many of them no row of the tile masks.
  const int diagonal = seqlen_kv - seqlen_q;  // query i sees keys <= i + diagonal
  const int n_end = CAUSAL ? min(seqlen_kv, row_of(m0 + BLOCK_M - 1) + 1 + diagonal) : seqlen_kv;
  const int n_blocks = n_end > 0 ? cdiv(n_end, BLOCK_N) : 0;
  int n_unmasked = min(n_blocks, seqlen_kv / BLOCK_N);
  if (CAUSAL) n_unmasked = min(n_unmasked, max(0, row_of(m0) + diagonal + 1) / BLOCK_N);
  // This block's run of them: [n_begin, n_stop).
  const int per_split = cdiv(n_blocks, SPLITS);
  const int n_begin = min(n_blocks, split * per_split), n_stop = min(n_blocks, n_begin + per_split);

  load_rows<T, BLOCK_M, HEAD_DIM, THREADS>(q_smem, [&](int r) { return q + q_at(m0 + r); }, packed_rows - m0);
  if (n_begin < n_stop) {
    const int first = n_begin * BLOCK_N;
    const unsigned stage = (n_begin & 1) * TILE_N_BYTES;
    load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(k_smem + stage, k_base + first * kv_row, kv_row, seqlen_kv - first);
    load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(v_smem + stage, v_base + first * kv_row, kv_row, seqlen_kv - first);
  }
  cp_async_commit();

  float acc_o[M_TILES][D_TILES][4];
  float row_max[M_TILES][2], row_sum[M_TILES][2];  // per thread: rows lane/4 and lane/4 + 8
#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt) {
#pragma unroll
    for (int dt = 0; dt < D_TILES; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc_o[mt][dt][e] = 0.0f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      row_max[mt][h] = neg_inf();
      row_sum[mt][h] = 0.0f;
    }
  }
  const int warp_row = warp * 16 * M_TILES;

  auto step = [&](int n_block, auto masked) {
    const int stage = n_block & 1;
    // The next key block's tiles go into the other stage, which the previous step finished with.
    if (n_block + 1 < n_stop) {
      const int next = (n_block + 1) * BLOCK_N;
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(k_smem + (stage ^ 1) * TILE_N_BYTES, k_base + next * kv_row, kv_row,
                                               seqlen_kv - next);
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(v_smem + (stage ^ 1) * TILE_N_BYTES, v_base + next * kv_row, kv_row,
                                               seqlen_kv - next);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    const unsigned k_tile = k_smem + stage * TILE_N_BYTES, v_tile = v_smem + stage * TILE_N_BYTES;

    // S = Q·Kᵀ for this warp's rows.
    float s[M_TILES][N_TILES][4];
#pragma unroll
    for (int mt = 0; mt < M_TILES; ++mt)
#pragma unroll
      for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) s[mt][nt][e] = 0.0f;
#pragma unroll
    for (int kk = 0; kk < HEAD_DIM / 16; ++kk) {
      unsigned a[M_TILES][4];
#pragma unroll
      for (int mt = 0; mt < M_TILES; ++mt)
        ldmatrix_x4(a[mt], q_smem + swizzled<CPR>(warp_row + mt * 16 + lane % 16, kk * 2 + lane / 16));
#pragma unroll
      for (int np = 0; np < N_TILES / 2; ++np) {
        unsigned b[4];
        ldmatrix_x4(b, k_tile + swizzled<CPR>(np * 16 + lane % 8 + (lane / 16) * 8, kk * 2 + (lane / 8) % 2));
        const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
        for (int mt = 0; mt < M_TILES; ++mt) {
          Mma<T>::run(s[mt][2 * np], a[mt], b0);
          Mma<T>::run(s[mt][2 * np + 1], a[mt], b1);
        }
      }
    }

    // Mask, then the online softmax: new row maxima, rescale what was summed so far.
#pragma unroll
    for (int mt = 0; mt < M_TILES; ++mt) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row_of(m0 + warp_row + mt * 16 + lane / 4 + h * 8);
        float block_max = neg_inf();
#pragma unroll
        for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = s[mt][nt][h * 2 + e];
            if constexpr (decltype(masked)::value) {
              const int col = n_block * BLOCK_N + nt * 8 + (lane % 4) * 2 + e;
              if (hidden<CAUSAL>(row, col, seqlen_kv, diagonal)) x = neg_inf();
            }
            block_max = fmaxf(block_max, x);
          }
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
        block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
        float base;
        const float rescale = online_step(row_max[mt][h], block_max, scale_log2, base);
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < N_TILES; ++nt)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            float& x = s[mt][nt][h * 2 + e];
            x = fast_exp2(fmaf(x, scale_log2, -base));
            sum += x;
          }
        row_sum[mt][h] = row_sum[mt][h] * rescale + sum;  // this thread's columns only
#pragma unroll
        for (int dt = 0; dt < D_TILES; ++dt) {
          acc_o[mt][dt][h * 2] *= rescale;
          acc_o[mt][dt][h * 2 + 1] *= rescale;
        }
      }
    }

    // O += P·V, P re-packed from the score fragments.
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt) {
      unsigned a[M_TILES][4];
#pragma unroll
      for (int mt = 0; mt < M_TILES; ++mt) {
        a[mt][0] = pack2<T>(s[mt][2 * kt][0], s[mt][2 * kt][1]);
        a[mt][1] = pack2<T>(s[mt][2 * kt][2], s[mt][2 * kt][3]);
        a[mt][2] = pack2<T>(s[mt][2 * kt + 1][0], s[mt][2 * kt + 1][1]);
        a[mt][3] = pack2<T>(s[mt][2 * kt + 1][2], s[mt][2 * kt + 1][3]);
      }
#pragma unroll
      for (int dp = 0; dp < D_TILES / 2; ++dp) {
        unsigned b[4];
        ldmatrix_x4_trans(b, v_tile + swizzled<CPR>(kt * 16 + lane % 16, dp * 2 + lane / 16));
        const unsigned b0[2] = {b[0], b[1]}, b1[2] = {b[2], b[3]};
#pragma unroll
        for (int mt = 0; mt < M_TILES; ++mt) {
          Mma<T>::run(acc_o[mt][2 * dp], a[mt], b0);
          Mma<T>::run(acc_o[mt][2 * dp + 1], a[mt], b1);
        }
      }
    }
    __syncthreads();  // this stage is refilled by the step after next's prefetch
  };

  int n_block = n_begin;
  for (; n_block < min(n_unmasked, n_stop); ++n_block) step(n_block, Flag<false>{});
  for (; n_block < n_stop; ++n_block) step(n_block, Flag<true>{});
  cp_async_wait<0>();  // nothing may still be landing in shared memory when the block exits

  // Epilogue: the full row sums (over the quad), O / sum, and the row LSE; with SPLITS > 1 into
  // this split's slot of the workspace, and the last split to finish combines them.
  const auto lse_at = [&](int i) { return ((long long)batch * heads + head_of(i)) * seqlen_q + row_of(i); };
  // Split slots by packed row: as many as LSE has rows.
  const long long first_slot = ((long long)batch * gridDim.y + blockIdx.y) * packed_rows + m0;
#pragma unroll
  for (int mt = 0; mt < M_TILES; ++mt)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float sum = row_sum[mt][h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
      const int local = warp_row + mt * 16 + lane / 4 + h * 8;
      if (m0 + local >= packed_rows) continue;
      if constexpr (SPLITS == 1) {
        T* out = o + q_at(m0 + local) + (lane % 4) * 2;
#pragma unroll
        for (int dt = 0; dt < D_TILES; ++dt)
          *reinterpret_cast<unsigned*>(out + dt * 8) =
              pack2<T>(acc_o[mt][dt][h * 2] * inv, acc_o[mt][dt][h * 2 + 1] * inv);
        if (lane % 4 == 0) lse[lse_at(m0 + local)] = row_lse(row_max[mt][h], sum);
      } else {
        float* part = partials + ((first_slot + local) * SPLITS + split) * (HEAD_DIM + 1);
#pragma unroll
        for (int dt = 0; dt < D_TILES; ++dt) {
          part[dt * 8 + (lane % 4) * 2] = acc_o[mt][dt][h * 2] * inv;
          part[dt * 8 + (lane % 4) * 2 + 1] = acc_o[mt][dt][h * 2 + 1] * inv;
        }
        if (lane % 4 == 0) part[HEAD_DIM] = row_lse(row_max[mt][h], sum);
      }
    }
  if constexpr (SPLITS > 1) {
    // The last split of this query tile to arrive combines (the fence publishes this block's
    // partials before its arrival; the counter goes back to zero for the next launch).
    __shared__ unsigned last;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned* counter = arrivals + ((long long)batch * gridDim.y + blockIdx.y) * m_blocks + m_block;
      last = atomicAdd(counter, 1u) == SPLITS - 1;
      if (last) *counter = 0;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    const int rows = min(BLOCK_M, packed_rows - m0);
    // A warp a row, two columns a lane: weights exp(lse_s - lse), lse = log sum_s exp(lse_s).
    for (int r = warp; r < rows; r += WARPS) {
      const float* part = partials + (first_slot + r) * SPLITS * (HEAD_DIM + 1);
      float top = neg_inf();
#pragma unroll
      for (int sp = 0; sp < SPLITS; ++sp) top = fmaxf(top, __ldcg(part + sp * (HEAD_DIM + 1) + HEAD_DIM));
      float weight[SPLITS], total = 0.0f;
#pragma unroll
      for (int sp = 0; sp < SPLITS; ++sp) {
        const float l = __ldcg(part + sp * (HEAD_DIM + 1) + HEAD_DIM);
        weight[sp] = top == neg_inf() ? 0.0f : __expf(l - top);
        total += weight[sp];
      }
      const float inv = total > 0.0f ? 1.0f / total : 0.0f;
      T* out = o + q_at(m0 + r);
      for (int d = 2 * lane; d < HEAD_DIM; d += 64) {
        float lo = 0.0f, hi = 0.0f;
#pragma unroll
        for (int sp = 0; sp < SPLITS; ++sp) {
          lo += weight[sp] * __ldcg(part + sp * (HEAD_DIM + 1) + d);
          hi += weight[sp] * __ldcg(part + sp * (HEAD_DIM + 1) + d + 1);
        }
        *reinterpret_cast<unsigned*>(out + d) = pack2<T>(lo * inv, hi * inv);
      }
      if (lane == 0) lse[lse_at(m0 + r)] = total > 0.0f ? top + __logf(total) : neg_inf();
    }
  }
}
