// gemm_nvfp4_wgmma.cu — C = A · dequant(W)^T with NVFP4 weights and 16-bit activations (weight-only
// quantization) for prefill, many rows of activations against an N x K weight, on Hopper (sm_90a).
//
// Formats as gemv_nvfp4.cu's (nvfp4.cuh decodes them exactly): W is N rows of K e2m1 values, two a
// byte, with an e4m3 scale per 16 along K (W_scales, N x K/16 bytes) and an fp32 tensor scale; A
// is M x K and C is M x N, row-major in T (__nv_bfloat16 or __half); fp32 accumulation.
//
// A block owns BLOCK_W = 64 * NUM_CONSUMERS rows of W (outputs along N) and BLOCK_T rows of A
// (tokens), and computes the transposed tile C^T = W · A^T: the weights are wgmma's A operand,
// taken from registers (64 rows a consumer warpgroup), where they arrive decoded from 4 bits; the
// activations are its B operand (N = BLOCK_T), read from shared memory K-major, as A lies in
// memory. Only the epilogue's stores see the transpose.
//
// Warpgroup 0 produces, one 64-k stage at a time into a ring of NUM_STAGES: one thread issues the
// TMA copies of the activations' box (BLOCK_T x 64, 128-byte swizzle, rows past M zero-filled) and
// of W's (BLOCK_W rows x 32 bytes of nibbles); warp 1 copies the stage's group scales (4 bytes a
// row) with cp.async, whose arrival on the same "full" mbarrier comes when they land.
//
// The consumers' decode: wgmma's register A fragment is mma.sync's A layout, in which thread
// (g, q) of a warp (g = lane / 4, q = lane % 4) holds k 2q, 2q+1 and 2q+8, 2q+9 of rows g and g+8
// of each k16 step. k 2q and 2q+1 of a run of 8 are the two nibbles of byte q of that run's 4
// bytes, so a register's pair is one byte: picked out of its word with a byte permute, its high
// nibble moved 12 bits up by a multiply (b * 0x1001, no carries), then decoded as nvfp4.cuh's
// pair (elements 0 and 4 of the word) and multiplied by the group's scale — a k16 step is one
// group of 16. A thread reads both of its rows' 32 bytes for the stage and takes byte q of each
// word. The stage's decode runs while the stage before is on the tensor cores, into the other of
// two register sets: wgmma_wait<1> first says the chunk that read them retired, freeing them and
// its stage's shared memory. (Decoding before that wait, into a third set, so that two chunks
// would be queued on the tensor cores meanwhile, was right once the fence below was a real
// instruction, and slower: results/h200/nvfp4-prefill-ab-531226f. ncu at 4096^3 sees the tensor
// pipe 80% busy here, 88% with no decode at all.)
//
// The grid is persistent: block b takes work units b, b + gridDim.x, ... (weight-row tiles
// fastest, so the blocks at work share their activations in L2), and the producer runs on into a
// block's next unit while its consumers store the last. A unit is a tile, or with SPLIT_K > 1 one
// of its K slices (the slices of all split tiles come after one another: split s of every tile,
// then s + 1). TAIL 0 splits every tile; TAIL 1 takes the tiles of the whole waves whole and
// splits only the last wave's few, so that the grid is busy in that wave too (1024 x 14336 in
// 128 x 256 tiles: 448 tiles, 3.4 waves on 132 SMs; 0.78x to 0.85x cuBLAS bf16 on an H200,
// results/h200/nvfp4-prefill-tail-0605b3a). Each consumer thread writes its accumulators to the
// workspace in its own order, and the consumer that arrives last at its tile's counter adds every
// slice's, in slice order (the same sum whatever the order of arrival), stores the tile and zeroes
// the counter for the next launch.
// A consumer stores its 64 x BLOCK_T part of C^T through its own staging area in shared memory,
// transposed there by its 2-byte writes, then copied out a row of C at a time in 16-byte pieces,
// where the accumulators' own layout would store 2 bytes at a time, 16 of every 32 a sector.
// (Measured on an H200: neither the staging nor the persistent grid moved the large shapes; split-K
// took 256 x 4096 x 14336 from 0.81x to 0.95x cuBLAS bf16. results/h200/nvfp4-prefill-838c260.)
//
// Launch: grid (min(units, SMs)), (NUM_CONSUMERS + 1) * 128 threads, SMEM_BYTES of dynamic shared
// memory (configs/gemm_nvfp4_wgmma.json). K % 64 == 0.
//
// Tunables:
//   BLOCK_T        tokens per block: wgmma's N (64, 128, 192 or 256).
//   NUM_CONSUMERS  consumer warpgroups, 64 weight rows each (1 or 2).
//   NUM_STAGES     64-k stages in the ring.
//   SPLIT_K        K slices a split tile is cut into.
//   TAIL           0: every tile is split (fewer tiles than SMs); 1: only the last wave's.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cp_async.cuh"
#include "hopper_async.cuh"
#include "nvfp4.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

namespace nvfp4_wgmma {

constexpr int SMEM_SLACK = 1024 + 256;  // the 1024-byte alignment of the swizzled tiles, then the mbarriers
constexpr int STAGE_K = 64;             // k a stage: one 128-byte swizzle row of 16-bit activations

// Byte `select & 3` of `word` decoded: its low nibble (the even k) in the low half of a T pair,
// its high nibble in the high half, each e2m1 * 2^-BIAS (nvfp4.cuh).
template <typename T>
__device__ __forceinline__ unsigned decode_byte(unsigned word, unsigned select) {
  const unsigned b = __byte_perm(word, 0u, select);  // the byte alone, in bits 0-7
  return nvfp4::decode_pair<T, 0>(b * 0x1001u);       // low nibble in bits 0-3, high one in 16-19
}

__device__ __forceinline__ __nv_bfloat16 to_out(__nv_bfloat16*, float v) { return __float2bfloat16_rn(v); }
__device__ __forceinline__ __half to_out(__half*, float v) { return __float2half_rn(v); }

}  // namespace nvfp4_wgmma

template <typename T, int BLOCK_T, int NUM_CONSUMERS, int NUM_STAGES, int SPLIT_K, int TAIL = 0>
__global__ void __launch_bounds__((NUM_CONSUMERS + 1) * 128, 1)
ktune_gemm_nvfp4_wgmma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmW,
                       const unsigned char* __restrict__ W_scales, const float* __restrict__ tensor_scale,
                       T* __restrict__ C, int M, int N, int K, float* __restrict__ partials,
                       unsigned* __restrict__ arrivals) {
  using namespace hopper_async;
  using namespace nvfp4_wgmma;
  using namespace wgmma_ops;
  using D = nvfp4::Dequant<T>;
  constexpr Kind KIND = OperandKind<T>::value;
  constexpr int BLOCK_W = 64 * NUM_CONSUMERS;
  constexpr int X_STAGE = BLOCK_T * STAGE_K * 2;  // activations: BLOCK_T rows of 128 bytes
  constexpr int W_STAGE = BLOCK_W * STAGE_K / 2;  // nibbles: BLOCK_W rows of 32 bytes
  constexpr int S_STAGE = BLOCK_W * STAGE_K / 16; // group scales: 4 bytes a row
  constexpr int C_PITCH = 64 + 8;                  // a staged row of C: a consumer's 64 columns, 16 bytes of padding
  constexpr int C_STAGE = BLOCK_T * C_PITCH * 2;   // a consumer's staging area
  // Registers as gemm_wgmma.cu gives them (configs/gemm_nvfp4_wgmma.json restates these).
  constexpr int THREADS = (NUM_CONSUMERS + 1) * 128;
  constexpr int ENTRY_REGS = (65536 / THREADS < 256 ? 65536 / THREADS : 256) / 8 * 8;
  constexpr int PRODUCER_REGS = 40;
  constexpr int CONSUMER_REGS_ALL = (ENTRY_REGS * (NUM_CONSUMERS + 1) - PRODUCER_REGS) / NUM_CONSUMERS / 8 * 8;
  constexpr int CONSUMER_REGS = CONSUMER_REGS_ALL < 240 ? CONSUMER_REGS_ALL : 240;
  static_assert(BLOCK_T == 64 || BLOCK_T == 128 || BLOCK_T == 192 || BLOCK_T == 256, "BLOCK_T: 64, 128, 192 or 256");
  static_assert(NUM_CONSUMERS == 1 || NUM_CONSUMERS == 2, "NUM_CONSUMERS: 1 or 2");
  static_assert(NUM_STAGES >= 2 && 2 * 8 * NUM_STAGES + 8 <= SMEM_SLACK - 1024,
                "NUM_STAGES: 2 or more, mbarriers and split-K flags in the slack");
  static_assert(SPLIT_K >= 1, "SPLIT_K >= 1");
  static_assert(TAIL == 0 || (TAIL == 1 && SPLIT_K > 1), "TAIL: 0, or 1 with SPLIT_K > 1");
  static_assert(BLOCK_T / 2 + 80 <= CONSUMER_REGS, "accumulators do not fit the consumer's registers");

  const int tiles_n = (N + BLOCK_W - 1) / BLOCK_W, tiles = tiles_n * ((M + BLOCK_T - 1) / BLOCK_T);
  // Tiles [0, whole) are units of their own; the split tiles [whole, tiles) SPLIT_K units each.
  const int whole = TAIL ? tiles / gridDim.x * gridDim.x : 0, split_tiles = tiles - whole;
  const int units = whole + split_tiles * SPLIT_K;
  // Unit u: a tile, its chunks [kc_begin, kc_end) of 64 k, and its slice (-1: the tile whole).
  const int per_split = (K / STAGE_K + SPLIT_K - 1) / SPLIT_K;
  auto unit_range = [&](int u, int& tile, int& kc_begin, int& kc_end, int& slice) {
    if (u < whole) {
      tile = u, kc_begin = 0, kc_end = K / STAGE_K, slice = -1;
      return;
    }
    tile = whole + (u - whole) % split_tiles;
    slice = SPLIT_K > 1 ? (u - whole) / split_tiles : -1;
    kc_begin = (slice < 0 ? 0 : slice) * per_split;
    kc_end = kc_begin + per_split < K / STAGE_K ? kc_begin + per_split : K / STAGE_K;
  };

  // Shared layout from the first 1024-byte boundary: the activation ring, the nibble ring, the
  // scale ring, the consumers' staging areas for C, then NUM_STAGES "full" and "empty" mbarriers.
  extern __shared__ __align__(1024) unsigned char smem[];
  const unsigned base = (smem_addr(smem) + 1023) & ~1023u;
  unsigned char* const base_ptr = smem + (base - smem_addr(smem));
  const unsigned x_ring = base;
  const unsigned w_ring = x_ring + NUM_STAGES * X_STAGE;
  const unsigned s_ring = w_ring + NUM_STAGES * W_STAGE;
  const unsigned c_stage = s_ring + NUM_STAGES * S_STAGE;
  const unsigned full_bar = c_stage + NUM_CONSUMERS * C_STAGE;
  const unsigned empty_bar = full_bar + 8 * NUM_STAGES;
  const unsigned last_flag = empty_bar + 8 * NUM_STAGES;  // per consumer: split-K's last arrival

  if (threadIdx.x == 0) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      mbar_init(full_bar + 8 * s, 1 + 32);          // the TMA thread's expect_tx, each scale copier's
      mbar_init(empty_bar + 8 * s, NUM_CONSUMERS * 4);  // each consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  auto advance = [](int& s, unsigned& phase) {
    if (++s == NUM_STAGES) {
      s = 0;
      phase ^= 1;
    }
  };

  if (threadIdx.x < 128) {
    // ---- producer warpgroup ----
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int s = 0;
    unsigned phase = 0;
    if (threadIdx.x == 0) {
      tma::prefetch_tensor_map(&tmA);
      tma::prefetch_tensor_map(&tmW);
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        int tile, kc_begin, kc_end, slice;
        unit_range(u, tile, kc_begin, kc_end, slice);
        const int n0 = tile % tiles_n * BLOCK_W, m0 = tile / tiles_n * BLOCK_T;
        for (int kc = kc_begin; kc < kc_end; ++kc) {
          mbar_wait(empty_bar + 8 * s, phase ^ 1);
          const unsigned bar = full_bar + 8 * s;
          mbar_arrive_expect_tx(bar, X_STAGE + W_STAGE);
          tma::tma_load_2d(x_ring + s * X_STAGE, &tmA, bar, kc * STAGE_K, m0);
          tma::tma_load_2d(w_ring + s * W_STAGE, &tmW, bar, kc * STAGE_K / 2, n0);
          advance(s, phase);
        }
      }
    } else if (warp == 1) {
      // Rows past N copy the last row's scales: their outputs are never stored.
      const long long s_ld = K / 16;
      for (int u = blockIdx.x; u < units; u += gridDim.x) {
        int tile, kc_begin, kc_end, slice;
        unit_range(u, tile, kc_begin, kc_end, slice);
        const int n0 = tile % tiles_n * BLOCK_W;
        for (int kc = kc_begin; kc < kc_end; ++kc) {
          mbar_wait(empty_bar + 8 * s, phase ^ 1);
#pragma unroll
          for (int r = lane; r < BLOCK_W; r += 32) {
            const int n = n0 + r < N ? n0 + r : N - 1;
            async_copy::cp_async_ca<4, 1>(s_ring + s * S_STAGE + r * 4, W_scales + n * s_ld + kc * (STAGE_K / 16), 4);
          }
          async_copy::cp_async_arrive_noinc(full_bar + 8 * s);
          advance(s, phase);
        }
      }
    }
    return;
  }

  // ---- consumer warpgroups ----
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
  const int consumer = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0) - 1;
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int g = lane / 4, q = lane % 4;
  const unsigned select = 0x4440u | q;  // byte q of the first operand, zeros from the second
  const int row = consumer * 64 + warp * 16 + g;  // this thread's rows of the block's W tile: row, row + 8
  constexpr unsigned DESC_HI = desc_hi(1024);
  const unsigned desc_x0 = desc_lo(x_ring, 16);

  float d[BLOCK_T / 2];

  // Stage `stage`'s weights for this thread, decoded and scaled: f[step] is k16 step `step`'s fragment.
  auto decode = [&](int stage, unsigned (&f)[4][4]) {
    const unsigned char* w_at = base_ptr + (w_ring - base) + stage * W_STAGE;
    const unsigned char* s_at = base_ptr + (s_ring - base) + stage * S_STAGE;
    const uint4 lo0 = *reinterpret_cast<const uint4*>(w_at + row * 32);
    const uint4 hi0 = *reinterpret_cast<const uint4*>(w_at + row * 32 + 16);
    const uint4 lo1 = *reinterpret_cast<const uint4*>(w_at + (row + 8) * 32);
    const uint4 hi1 = *reinterpret_cast<const uint4*>(w_at + (row + 8) * 32 + 16);
    const unsigned words[2][8] = {{lo0.x, lo0.y, lo0.z, lo0.w, hi0.x, hi0.y, hi0.z, hi0.w},
                                  {lo1.x, lo1.y, lo1.z, lo1.w, hi1.x, hi1.y, hi1.z, hi1.w}};
    const unsigned scales[2] = {*reinterpret_cast<const unsigned*>(s_at + row * 4),
                                *reinterpret_cast<const unsigned*>(s_at + (row + 8) * 4)};
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // steps 2h and 2h + 1: one 16-bit half of each scale word
      const float2 f0 = nvfp4::e4m3_pair(scales[0] >> (16 * h)), f1 = nvfp4::e4m3_pair(scales[1] >> (16 * h));
      const unsigned s0[2] = {D::scale_pair(f0.x), D::scale_pair(f0.y)};
      const unsigned s1[2] = {D::scale_pair(f1.x), D::scale_pair(f1.y)};
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int step = 2 * h + j;
        f[step][0] = D::mul(decode_byte<T>(words[0][2 * step], select), s0[j]);
        f[step][1] = D::mul(decode_byte<T>(words[1][2 * step], select), s1[j]);
        f[step][2] = D::mul(decode_byte<T>(words[0][2 * step + 1], select), s0[j]);
        f[step][3] = D::mul(decode_byte<T>(words[1][2 * step + 1], select), s1[j]);
      }
    }
  };

  int s = 0, prev = -1;
  unsigned phase = 0;
  auto release = [&](int stage) {
    if (lane == 0) mbar_arrive(empty_bar + 8 * stage);
  };
  // Chunk kc (in stage s, decoded into cur) onto the tensor cores; then the chunk before retired
  // and its stage released; then, while chunk kc runs, the next chunk decoded into nxt, the
  // registers the retired chunk read.
  // The wgmma reads its A fragment's registers after issue, until the wait that retires it, and
  // ptxas does not know: it counts them free after the issue. A use after that wait keeps the
  // set live until then. It must be an instruction ptxas keeps, so it is a store of the set that
  // never runs (K is never negative); an empty asm binds nothing in ptxas, and with the decode
  // moved before the wait the SASS gave the in-flight fragments to the decode's temporaries
  // (results/h200/nvfp4-prefill-ab-531226f/: 235 of 296 such candidates wrong; with this store none).
  const unsigned never_written = c_stage + consumer * C_STAGE;
  auto keep_until_here = [&](unsigned (&f)[4][4]) {
#pragma unroll
    for (int k16 = 0; k16 < 4; ++k16)
      asm volatile("{\n.reg .pred never;\nsetp.lt.s32 never, %5, 0;\n@never st.shared.v4.b32 [%4], {%0, %1, %2, %3};\n}\n"
                   ::"r"(f[k16][0]), "r"(f[k16][1]), "r"(f[k16][2]), "r"(f[k16][3]), "r"(never_written), "r"(K)
                   : "memory");
  };
  int kc_end = 0;
  auto step = [&](int kc, unsigned (&cur)[4][4], unsigned (&nxt)[4][4], unsigned (&old)[4][4]) {  // old: nxt's last reader's
    fence_accumulators(d);
    wgmma_fence();
#pragma unroll
    for (int k16 = 0; k16 < 4; ++k16)
      wgmma_rs<KIND, BLOCK_T, 0>(d, cur[k16], desc_join(DESC_HI, desc_x0 + ((s * X_STAGE + k16 * 32) >> 4)));
    wgmma_commit();
    fence_accumulators(d);
    wgmma_wait<1>();
    keep_until_here(old);  // the chunk before's fragments, retired now
    if (prev >= 0) release(prev);
    prev = s;
    advance(s, phase);
    if (kc + 1 < kc_end) {
      mbar_wait(full_bar + 8 * s, phase);
      decode(s, nxt);
    }
  };

  unsigned frag[2][4][4];
  const float factor = *tensor_scale * D::EPILOGUE_FACTOR;
  T* const staged = reinterpret_cast<T*>(base_ptr + (c_stage - base) + consumer * C_STAGE);
  const int tid = threadIdx.x % 128;
  for (int u = blockIdx.x; u < units; u += gridDim.x) {
    int tile, kc_begin, slice;
    unit_range(u, tile, kc_begin, kc_end, slice);
    const int n0 = tile % tiles_n * BLOCK_W, m0 = tile / tiles_n * BLOCK_T;
#pragma unroll
    for (int i = 0; i < BLOCK_T / 2; ++i) d[i] = 0.f;
    if (kc_begin < kc_end) {  // (a config keeps every slice non-empty; an empty one adds zeros)
      mbar_wait(full_bar + 8 * s, phase);
      decode(s, frag[0]);
      for (int kc = kc_begin; kc < kc_end; kc += 2) {
        step(kc, frag[0], frag[1], frag[1]);
        if (kc + 1 < kc_end) step(kc + 1, frag[1], frag[0], frag[0]);
      }
      wgmma_wait<0>();
      fence_accumulators(d);
      release(prev);
      prev = -1;
    }

    if (SPLIT_K > 1 && slice >= 0) {
      // This slice of this consumer's part of the tile, in this thread's own order.
      constexpr int PART = BLOCK_T / 2 * 128;
      const long long part = (static_cast<long long>(tile - whole) * NUM_CONSUMERS + consumer) * PART + tid;
      const long long split_stride = static_cast<long long>(split_tiles) * NUM_CONSUMERS * PART;
#pragma unroll
      for (int i = 0; i < BLOCK_T / 2; ++i) __stcg(partials + slice * split_stride + part + i * 128, d[i]);
      __threadfence();  // this thread's partials are visible device-wide before the arrival counts
      tma::named_barrier_sync(1 + consumer, 128);
      unsigned* const counter = arrivals + tile * NUM_CONSUMERS + consumer;
      volatile unsigned* const flag = reinterpret_cast<volatile unsigned*>(base_ptr + (last_flag - base)) + consumer;
      if (tid == 0) *flag = atomicAdd(counter, 1u) == SPLIT_K - 1;
      tma::named_barrier_sync(1 + consumer, 128);
      if (!*flag) continue;
      __threadfence();  // see every other slice's partials
#pragma unroll
      for (int i = 0; i < BLOCK_T / 2; ++i) d[i] = 0.f;
      for (int sp = 0; sp < SPLIT_K; ++sp)
#pragma unroll
        for (int i = 0; i < BLOCK_T / 2; ++i) d[i] += __ldcg(partials + sp * split_stride + part + i * 128);
      if (tid == 0) *counter = 0u;  // ready for the next launch
    }

    // Staged as rows of C (this consumer's 64 columns): accumulator i of column block j is
    // weight row warp * 16 + g + 8 * (i / 2) of the consumer's, token 8j + 2q + i % 2. The
    // barrier before says this consumer's threads are done copying out the tile before.
    tma::named_barrier_sync(1 + consumer, 128);
#pragma unroll
    for (int j = 0; j < BLOCK_T / 8; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        staged[(8 * j + 2 * q + (i & 1)) * C_PITCH + warp * 16 + g + 8 * (i >> 1)] =
            to_out(C, d[4 * j + i] * factor);
    tma::named_barrier_sync(1 + consumer, 128);
    // Out a row of C at a time: 8 threads a row, 16 bytes each.
    const int col = n0 + consumer * 64 + tid % 8 * 8;
    const bool whole = col + 8 <= N && N % 8 == 0;
#pragma unroll 4
    for (int r = tid / 8; r < BLOCK_T; r += 16) {
      const int m = m0 + r;
      if (m >= M) break;
      const T* from = staged + r * C_PITCH + tid % 8 * 8;
      T* to = C + static_cast<long long>(m) * N + col;
      if (whole) {
        *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
      } else {
        for (int e = 0; e < 8 && col + e < N; ++e) to[e] = from[e];
      }
    }
  }
}
