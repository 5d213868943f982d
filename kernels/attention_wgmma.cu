// attention_wgmma.cu — forward attention for Hopper (sm_90a) on warpgroup MMA: the arguments,
// shapes, masks and outputs of attention_mma.cu (read its header), with S = Q·Kᵀ and O += P·V as
// wgmma instead of mma.sync.
//
// Launch: grid (cdiv(seqlen_q, 64 * CONSUMERS), heads, batch), CONSUMERS * 128 threads, and
// (64 * CONSUMERS + 2 * STAGES * BLOCK_N) * HEAD_DIM * sizeof(T) + 1024 bytes of dynamic shared
// memory (the slack aligns the tiles to the 1024-byte swizzle period).
//
// Tunables: BLOCK_N (keys per step: 64 or 128, the N of the QKᵀ wgmma), CONSUMERS (warpgroups,
// each owning 64 query rows: 1 or 2), STAGES (depth of the K/V ring, 2 or 3).
//
// Design. Every thread loads: Q once, then K and V tiles by cp.async into a STAGES-deep ring, so
// the tiles of the next STAGES - 1 key blocks are in flight while this one computes. Tiles sit in
// shared memory as wgmma reads them with the 128-byte swizzle: 64-column panels of 128-byte rows,
// the 16-byte chunks of each row XORed with the row's low three bits. QKᵀ reads Q and K from
// there (both K-major); PV takes P straight from the score registers (the accumulator layout of
// two n8 tiles is the A-operand layout of one k16 step) and V from shared memory N-major, so
// probabilities never touch shared memory. Key blocks no row masks skip the mask arithmetic;
// blocks are issued longest causal rows first.
#include "attention_common.cuh"
#include "hopper_async.cuh"
#include "mma_sync.cuh"
#include "wgmma.cuh"

namespace attention_wgmma_detail {

using namespace attention_common;
using namespace wgmma_ops;

// Byte offset of 16-byte chunk `chunk` (of HEAD_DIM / 8) of row `row` in a tile of ROWS rows laid
// out as wgmma's 128-byte swizzle wants: 64-column panels, one after the other.
template <int ROWS>
__device__ __forceinline__ unsigned swizzled(int row, int chunk) {
  return static_cast<unsigned>((chunk / 8) * ROWS * 128 + row * 128 + (((chunk % 8) ^ (row & 7)) * 16));
}

// Copies rows [0, ROWS) of a tile (HEAD_DIM elements a row, `row_stride` apart) into `dst`;
// rows at or past `valid_rows` are zero-filled.
template <typename T, int ROWS, int HEAD_DIM, int THREADS>
__device__ __forceinline__ void load_tile(unsigned dst, const T* src, long long row_stride, int valid_rows) {
  constexpr int CPR = HEAD_DIM * sizeof(T) / 16;
  constexpr int CHUNKS = ROWS * CPR;
#pragma unroll
  for (int it = 0; it < cdiv(CHUNKS, THREADS); ++it) {
    const int i = it * THREADS + static_cast<int>(threadIdx.x);
    if (CHUNKS % THREADS == 0 || i < CHUNKS) {
      const int row = i / CPR, chunk = i % CPR;
      const bool valid = row < valid_rows;
      const T* p = src + (valid ? row : 0) * row_stride + chunk * (16 / sizeof(T));
      mma_sync::cp_async_16(dst + swizzled<ROWS>(row, chunk), p, valid ? 16 : 0);
    }
  }
}

}  // namespace attention_wgmma_detail

template <typename T, int HEAD_DIM, int BLOCK_N, int CONSUMERS, int STAGES, int CAUSAL, int BSHD>
__global__ void __launch_bounds__(CONSUMERS * 128, 1)
    ktune_attention_wgmma(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                          T* __restrict__ o, float* __restrict__ lse, int heads, int kv_heads, int seqlen_q,
                          int seqlen_kv, float scale_log2) {
  using namespace attention_wgmma_detail;
  using mma_sync::cp_async_commit;
  using mma_sync::cp_async_wait;
  constexpr int THREADS = CONSUMERS * 128;
  constexpr int BLOCK_M = 64 * CONSUMERS;
  constexpr Kind KIND = OperandKind<T>::value;
  constexpr unsigned TILE_N_BYTES = BLOCK_N * HEAD_DIM * sizeof(T);
  static_assert(sizeof(T) == 2, "fp16 or bf16");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128, "the QK^T wgmma's N");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128 || HEAD_DIM == 256, "the PV wgmma's N");

  extern __shared__ unsigned char smem_raw[];
  // The tiles start on the 1024-byte swizzle period (the launch adds 1024 bytes of slack).
  const unsigned base = (hopper_async::smem_addr(smem_raw) + 1023) & ~1023u;
  const unsigned q_smem = base;
  const unsigned k_smem = q_smem + BLOCK_M * HEAD_DIM * sizeof(T);  // STAGES tiles
  const unsigned v_smem = k_smem + STAGES * TILE_N_BYTES;          // STAGES tiles

  const int consumer = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const int m_block = gridDim.x - 1 - blockIdx.x;  // the longest causal rows first
  const int head = blockIdx.y, batch = blockIdx.z;
  const int kv_head = head / (heads / kv_heads);
  const int m0 = m_block * BLOCK_M;

  const Strides qs = strides<BSHD, HEAD_DIM>(heads, seqlen_q), kvs = strides<BSHD, HEAD_DIM>(kv_heads, seqlen_kv);
  const long long q_offset = batch * qs.batch + head * qs.head + m0 * qs.row;
  const T* k_base = k + batch * kvs.batch + kv_head * kvs.head;
  const T* v_base = v + batch * kvs.batch + kv_head * kvs.head;

  const int diagonal = seqlen_kv - seqlen_q;
  const int n_end = CAUSAL ? min(seqlen_kv, m0 + BLOCK_M + diagonal) : seqlen_kv;
  const int n_blocks = n_end > 0 ? cdiv(n_end, BLOCK_N) : 0;
  int n_unmasked = min(n_blocks, seqlen_kv / BLOCK_N);
  if (CAUSAL) n_unmasked = min(n_unmasked, max(0, m0 + diagonal + 1) / BLOCK_N);

  // Q, and the first STAGES - 1 key blocks, one commit group each (Q rides with the first).
  load_tile<T, BLOCK_M, HEAD_DIM, THREADS>(q_smem, q + q_offset, qs.row, seqlen_q - m0);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < n_blocks) {
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(k_smem + s * TILE_N_BYTES, k_base + s * BLOCK_N * kvs.row, kvs.row,
                                               seqlen_kv - s * BLOCK_N);
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(v_smem + s * TILE_N_BYTES, v_base + s * BLOCK_N * kvs.row, kvs.row,
                                               seqlen_kv - s * BLOCK_N);
    }
    cp_async_commit();
  }

  float acc_o[HEAD_DIM / 2];
#pragma unroll
  for (int i = 0; i < HEAD_DIM / 2; ++i) acc_o[i] = 0.0f;
  float row_max[2] = {neg_inf(), neg_inf()}, row_sum[2] = {0.0f, 0.0f};  // rows lane/4 and lane/4 + 8
  const int my_row = consumer * 64 + warp * 16 + lane / 4;                  // in the block, h = 0
  // QKᵀ's A operand: this warpgroup's 64 rows of Q, K-major (LBO unused), 8-row groups 1024 apart.
  const unsigned long long q_desc = make_desc(q_smem + consumer * 64 * 128, 16, 1024);

  auto step = [&](int n_block, auto masked) {
    const int stage = n_block % STAGES;
    // Refill the stage the previous step finished with, STAGES - 1 blocks ahead.
    const int ahead = n_block + STAGES - 1;
    if (ahead < n_blocks) {
      const int at = (ahead % STAGES);
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(k_smem + at * TILE_N_BYTES, k_base + ahead * BLOCK_N * kvs.row, kvs.row,
                                               seqlen_kv - ahead * BLOCK_N);
      load_tile<T, BLOCK_N, HEAD_DIM, THREADS>(v_smem + at * TILE_N_BYTES, v_base + ahead * BLOCK_N * kvs.row, kvs.row,
                                               seqlen_kv - ahead * BLOCK_N);
    }
    cp_async_commit();
    cp_async_wait<STAGES - 1>();
    hopper_async::fence_proxy_async_shared();  // cp.async wrote through the generic proxy; wgmma reads async
    __syncthreads();
    const unsigned k_tile = k_smem + stage * TILE_N_BYTES, v_tile = v_smem + stage * TILE_N_BYTES;

    // S = Q·Kᵀ: HEAD_DIM / 16 k-steps, four to a 64-column panel (32 bytes each).
    float s[BLOCK_N / 2];
#pragma unroll
    for (int i = 0; i < BLOCK_N / 2; ++i) s[i] = 0.0f;
    wgmma_fence();
#pragma unroll
    for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
      const unsigned long long a = q_desc + (((ks / 4) * BLOCK_M * 128 + (ks % 4) * 32) >> 4);
      const unsigned long long b = make_desc(k_tile + (ks / 4) * BLOCK_N * 128 + (ks % 4) * 32, 16, 1024);
      wgmma<KIND, BLOCK_N, 0, 0>(s, a, b);
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_accumulators(s);

    // Mask, then the online softmax; s[4j + 2h + e] is row my_row + 8h, column 8j + 2(lane%4) + e.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + my_row + h * 8;
      float block_max = neg_inf();
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * j + 2 * h + e];
          if constexpr (decltype(masked)::value)
            if (hidden<CAUSAL>(row, n_block * BLOCK_N + 8 * j + 2 * (lane % 4) + e, seqlen_kv, diagonal)) x = neg_inf();
          block_max = fmaxf(block_max, x);
        }
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
      float shift;
      const float rescale = online_step(row_max[h], block_max, scale_log2, shift);
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * j + 2 * h + e];
          x = fast_exp2(fmaf(x, scale_log2, -shift));
          sum += x;
        }
      row_sum[h] = row_sum[h] * rescale + sum;
#pragma unroll
      for (int j = 0; j < HEAD_DIM / 8; ++j) {
        acc_o[4 * j + 2 * h] *= rescale;
        acc_o[4 * j + 2 * h + 1] *= rescale;
      }
    }

    // O += P·V: P from the score registers, V N-major (64-column panels BLOCK_N * 128 bytes apart).
    // All of P is packed before the fence: a register written between the wgmmas of one group
    // would make ptxas fence each of them on its own.
    unsigned p[BLOCK_N / 16][4];
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt)
#pragma unroll
      for (int r = 0; r < 4; ++r) p[kt][r] = pack2<T>(s[8 * kt + 2 * r], s[8 * kt + 2 * r + 1]);
    wgmma_fence();
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt)
      wgmma_rs<KIND, HEAD_DIM, 1>(acc_o, p[kt], make_desc(v_tile + kt * 16 * 128, BLOCK_N * 128, 1024));
    wgmma_commit();
    wgmma_wait<0>();
    fence_accumulators(acc_o);
    __syncthreads();  // every warpgroup is done with this stage before it is refilled
  };

  int n_block = 0;
  for (; n_block < n_unmasked; ++n_block) step(n_block, Flag<false>{});
  for (; n_block < n_blocks; ++n_block) step(n_block, Flag<true>{});
  cp_async_wait<0>();  // nothing may still be landing in shared memory when the block exits

  T* o_base = o + q_offset;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = row_sum[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    const int local = my_row + h * 8;
    if (m0 + local >= seqlen_q) continue;
    T* out = o_base + local * qs.row + 2 * (lane % 4);
#pragma unroll
    for (int j = 0; j < HEAD_DIM / 8; ++j)
      *reinterpret_cast<unsigned*>(out + 8 * j) = pack2<T>(acc_o[4 * j + 2 * h] * inv, acc_o[4 * j + 2 * h + 1] * inv);
    if (lane % 4 == 0) lse[((long long)batch * heads + head) * seqlen_q + m0 + local] = row_lse(row_max[h], sum);
  }
}
