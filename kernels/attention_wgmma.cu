// attention_wgmma.cu — forward attention for Hopper (sm_90a) on warpgroup MMA: the arguments,
// shapes, masks and outputs of attention_mma.cu (read its header), with S = Q·Kᵀ and O += P·V as
// wgmma instead of mma.sync.
//
// Launch: grid (cdiv(seqlen_q, 64 * CONSUMERS), heads, batch), (CONSUMERS + 1) * 128 threads, and
// (64 * CONSUMERS + 2 * STAGES * BLOCK_N) * HEAD_DIM * sizeof(T) + 1024 + 256 bytes of dynamic
// shared memory (the slack aligns the tiles to the 1024-byte swizzle period and holds the
// mbarriers).
//
// Tunables: BLOCK_N (keys per step: 64 or 128, the N of the QKᵀ wgmma), CONSUMERS (warpgroups,
// each owning 64 query rows: 1 or 2), STAGES (depth of the K/V ring, 2 or 3), OVERLAP (1: each
// consumer issues the next key block's QKᵀ before this block's softmax, so the two overlap).
//
// Design. Warpgroup 0 produces: its 128 threads copy Q once, then the K and V tiles of each key
// block by cp.async into a STAGES-deep ring; each thread's copies arrive on the stage's "full"
// mbarrier when they land (cp.async.mbarrier.arrive), and a stage is refilled once every
// consumer warp has arrived on its "empty" one. The other warpgroups consume, each at its own
// pace (no block-wide barrier in the loop, so one warpgroup's softmax overlaps the other's
// tensor-core work); setmaxnreg moves the producer's registers to them. Tiles sit in shared
// memory as wgmma reads them with the 128-byte swizzle: 64-column panels of 128-byte rows, the
// 16-byte chunks of each row XORed with the row's low three bits. QKᵀ reads Q and K from there
// (both K-major); PV takes P straight from the score registers (the accumulator layout of two n8
// tiles is the A-operand layout of one k16 step) and V from shared memory N-major, so
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
// Not unrolled: the producer runs it in the few registers setmaxnreg leaves it.
template <typename T, int ROWS, int HEAD_DIM, int THREADS>
__device__ __forceinline__ void load_tile(unsigned dst, const T* src, long long row_stride, int valid_rows) {
  constexpr int CPR = HEAD_DIM * sizeof(T) / 16;
  constexpr int CHUNKS = ROWS * CPR;
#pragma unroll 1
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

// Arrives on the mbarrier once every cp.async this thread issued so far has landed (the barrier
// counts this thread among its expected arrivals: .noinc).
__device__ __forceinline__ void cp_async_arrive(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
}

}  // namespace attention_wgmma_detail

template <typename T, int HEAD_DIM, int BLOCK_N, int CONSUMERS, int STAGES, int OVERLAP, int CAUSAL, int BSHD>
__global__ void __launch_bounds__((CONSUMERS + 1) * 128, 1)
    ktune_attention_wgmma(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                          T* __restrict__ o, float* __restrict__ lse, int heads, int kv_heads, int seqlen_q,
                          int seqlen_kv, float scale_log2) {
  using namespace attention_wgmma_detail;
  using namespace hopper_async;
  constexpr int THREADS = (CONSUMERS + 1) * 128;
  constexpr int BLOCK_M = 64 * CONSUMERS;
  constexpr Kind KIND = OperandKind<T>::value;
  constexpr unsigned TILE_N_BYTES = BLOCK_N * HEAD_DIM * sizeof(T);
  // Registers: __launch_bounds__ caps each thread at ENTRY_REGS; setmaxnreg then moves the
  // producer's share to the consumers, which hold the O accumulators and the scores.
  constexpr int ENTRY_REGS = (65536 / THREADS < 256 ? 65536 / THREADS : 256) / 8 * 8;
  constexpr int PRODUCER_REGS = 40;
  constexpr int CONSUMER_REGS_FIT = (ENTRY_REGS * (CONSUMERS + 1) - PRODUCER_REGS) / CONSUMERS / 8 * 8;
  constexpr int CONSUMER_REGS = CONSUMER_REGS_FIT < 240 ? CONSUMER_REGS_FIT : 240;
  static_assert(sizeof(T) == 2, "fp16 or bf16");
  static_assert(BLOCK_N == 64 || BLOCK_N == 128, "the QK^T wgmma's N");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128 || HEAD_DIM == 256, "the PV wgmma's N");

  extern __shared__ unsigned char smem_raw[];
  // The tiles start on the 1024-byte swizzle period; the mbarriers follow them (the launch adds
  // 1024 + 256 bytes of slack).
  const unsigned base = (smem_addr(smem_raw) + 1023) & ~1023u;
  const unsigned q_smem = base;
  const unsigned k_smem = q_smem + BLOCK_M * HEAD_DIM * sizeof(T);  // STAGES tiles
  const unsigned v_smem = k_smem + STAGES * TILE_N_BYTES;          // STAGES tiles
  const unsigned q_full = v_smem + STAGES * TILE_N_BYTES;          // then full[STAGES], empty[STAGES]
  const auto full = [&](int s) { return q_full + 8 * (1 + s); };
  const auto empty = [&](int s) { return q_full + 8 * (1 + STAGES + s); };

  const int m_block = gridDim.x - 1 - blockIdx.x;  // the longest causal rows first
  const int head = blockIdx.y, batch = blockIdx.z;
  const int kv_head = head / (heads / kv_heads);
  const int m0 = m_block * BLOCK_M;
  const Strides qs = strides<BSHD, HEAD_DIM>(heads, seqlen_q), kvs = strides<BSHD, HEAD_DIM>(kv_heads, seqlen_kv);
  const long long q_offset = batch * qs.batch + head * qs.head + m0 * qs.row;

  const int diagonal = seqlen_kv - seqlen_q;
  const int n_end = CAUSAL ? min(seqlen_kv, m0 + BLOCK_M + diagonal) : seqlen_kv;
  const int n_blocks = n_end > 0 ? cdiv(n_end, BLOCK_N) : 0;

  if (threadIdx.x == 0) {
    mbar_init(q_full, 128);
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(full(s), 128);             // every producer thread's copies landed
      mbar_init(empty(s), CONSUMERS * 4);  // every consumer warp is done reading
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {
    // ---- producer warpgroup: cp.async of every tile, each thread's completion arriving on the
    // stage's "full" barrier; a stage is refilled once every consumer warp released it ----
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
    const T* k_base = k + batch * kvs.batch + kv_head * kvs.head;
    const T* v_base = v + batch * kvs.batch + kv_head * kvs.head;
    load_tile<T, BLOCK_M, HEAD_DIM, 128>(q_smem, q + q_offset, qs.row, seqlen_q - m0);
    cp_async_arrive(q_full);
    for (int n = 0; n < n_blocks; ++n) {
      const int s = n % STAGES;
      mbar_wait(empty(s), ((n / STAGES) & 1) ^ 1);
      load_tile<T, BLOCK_N, HEAD_DIM, 128>(k_smem + s * TILE_N_BYTES, k_base + n * BLOCK_N * kvs.row, kvs.row,
                                           seqlen_kv - n * BLOCK_N);
      load_tile<T, BLOCK_N, HEAD_DIM, 128>(v_smem + s * TILE_N_BYTES, v_base + n * BLOCK_N * kvs.row, kvs.row,
                                           seqlen_kv - n * BLOCK_N);
      cp_async_arrive(full(s));
    }
    mma_sync::cp_async_commit();
    mma_sync::cp_async_wait<0>();
    return;
  }

  // ---- consumer warpgroups: 64 query rows each ----
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
  const int consumer = threadIdx.x / 128 - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  int n_unmasked = min(n_blocks, seqlen_kv / BLOCK_N);
  if (CAUSAL) n_unmasked = min(n_unmasked, max(0, m0 + diagonal + 1) / BLOCK_N);

  float acc_o[HEAD_DIM / 2];
#pragma unroll
  for (int i = 0; i < HEAD_DIM / 2; ++i) acc_o[i] = 0.0f;
  float row_max[2] = {neg_inf(), neg_inf()}, row_sum[2] = {0.0f, 0.0f};  // rows lane/4 and lane/4 + 8
  const int my_row = consumer * 64 + warp * 16 + lane / 4;                // in the block, h = 0
  // QKᵀ's A operand: this warpgroup's 64 rows of Q, K-major (LBO unused), 8-row groups 1024 apart.
  const unsigned long long q_desc = make_desc(q_smem + consumer * 64 * 128, 16, 1024);
  mbar_wait(q_full, 0);

  // S = Q·Kᵀ for key block n, issued as one asynchronous group (HEAD_DIM / 16 k-steps, four to a
  // 64-column panel of 32 bytes each) once the block's stage is full.
  auto issue_scores = [&](float (&s)[BLOCK_N / 2], int n) {
    const int stage = n % STAGES;
    mbar_wait(full(stage), (n / STAGES) & 1);
    fence_proxy_async_shared();  // the producer's cp.async wrote through the generic proxy; wgmma reads async
    const unsigned k_tile = k_smem + stage * TILE_N_BYTES;
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
  };

  // Mask, then the online softmax of key block n's scores, in place; s[4j + 2h + e] is row
  // my_row + 8h, column 8j + 2(lane%4) + e. Rescales O, which no wgmma may be writing.
  auto softmax = [&](float (&s)[BLOCK_N / 2], int n, auto masked) {
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
            if (hidden<CAUSAL>(row, n * BLOCK_N + 8 * j + 2 * (lane % 4) + e, seqlen_kv, diagonal)) x = neg_inf();
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
  };
  auto softmax_of = [&](float (&s)[BLOCK_N / 2], int n) {
    if (n < n_unmasked)
      softmax(s, n, Flag<false>{});
    else
      softmax(s, n, Flag<true>{});
  };

  // O += P·V for key block n as one asynchronous group: P from the score registers, V N-major
  // (64-column panels BLOCK_N * 128 bytes apart). All of P is packed before the fence: a register
  // written between the wgmmas of one group would make ptxas fence each of them on its own.
  auto issue_pv = [&](const float (&s)[BLOCK_N / 2], int n) {
    const unsigned v_tile = v_smem + (n % STAGES) * TILE_N_BYTES;
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
  };

  // Once this warp's wgmma on block n's stage have retired: one arrival per warp releases it.
  auto release = [&](int n) {
    __syncwarp();
    if (lane == 0) mbar_arrive(empty(n % STAGES));
  };

  float s_cur[BLOCK_N / 2];
  if constexpr (!OVERLAP) {
    for (int n = 0; n < n_blocks; ++n) {
      issue_scores(s_cur, n);
      wgmma_wait<0>();
      fence_accumulators(s_cur);
      softmax_of(s_cur, n);
      issue_pv(s_cur, n);
      wgmma_wait<0>();
      fence_accumulators(acc_o);
      release(n);
    }
  } else if (n_blocks > 0) {
    // The next block's QKᵀ runs on the tensor cores while this block's softmax runs on the
    // others (FlashAttention-3's intra-warpgroup overlap), at the cost of a second score tile.
    float s_next[BLOCK_N / 2];
    issue_scores(s_cur, 0);
    wgmma_wait<0>();
    fence_accumulators(s_cur);
    for (int n = 0; n < n_blocks; ++n) {
      const bool more = n + 1 < n_blocks;
      if (more) issue_scores(s_next, n + 1);
      softmax_of(s_cur, n);
      issue_pv(s_cur, n);
      wgmma_wait<0>();
      fence_accumulators(acc_o);
      fence_accumulators(s_next);
      release(n);
#pragma unroll
      for (int i = 0; i < BLOCK_N / 2; ++i) s_cur[i] = s_next[i];
    }
  }

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
