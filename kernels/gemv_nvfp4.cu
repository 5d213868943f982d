// gemv_nvfp4.cu — C = A · dequant(W)^T with NVFP4 weights and 16-bit activations (weight-only
// quantization), for the decode regime: M <= 16 rows of activations against an N x K weight, for
// any sm_80+ GPU.
//
// W is N rows of K e2m1 values (two a byte, element 2i in bits 0-3 of byte i), each group of 16
// along K with an e4m3 scale (W_scales, N x K/16 bytes, row-major), and one fp32 tensor scale:
// W[n][k] = e2m1 * e4m3(group scale) * tensor_scale (src/quant/block_scaled.hpp, docs/formats.md).
// A is M x K and C is M x N, both row-major in T (__nv_bfloat16 or __half); fp32 accumulation.
//
// With M this small the kernel is a stream over W: 4.5 bits an element instead of 16, so the
// bytes to move are a quarter of a 16-bit GEMV's and what matters is to keep enough of W in
// flight and to dequantize it cheaply enough that the SMs keep up with DRAM (at 3.35 TB/s and
// 1.98 GHz an H100 SM sees about 23 weights a cycle). The tensor cores do the multiply-adds, the CUDA cores only
// decode: each warp runs mma.sync m16n8k16 with 16 weight rows as the mma's A operand and up to 8
// activation rows as its B (N_TILES of them for M up to 16), so unpacking and scaling cost about
// two and a half instructions a weight whatever M is. That and latency are what bound it: at
// 1x4096x14336 ncu counts 4.9 instructions a weight in all, issue slots 44% busy and no warp
// eligible 47% of the time, stalled mostly on loads (results/h100/nvfp4/ncu/, a split-K
// candidate); the winner's DRAM throughput is 57% of peak, cuBLAS's 16-bit GEMV's 80%.
//
// Dequantization is exact in T (nvfp4.cuh says how).
//
// Which k a thread's registers hold within an mma is free as long as the weights and activations
// agree: thread (g, q) of a warp (g = lane / 4, q = lane % 4) reads 16 bytes, 32 consecutive k
// of rows g and g + 8 of its 16-row tile, per 128-k chunk; 32-bit word w of those holds k 8w..8w+7,
// and its decoded pairs are elements (i, i+4), which the activations' registers mirror with one
// byte permute each. Groups of 16 are words 0-1 and 2-3, one scale each.
//
// Launch: grid (cdiv(N, 16 * ROW_TILES), SPLIT_K), ROW_TILES * K_WARPS * 32 threads, SMEM_BYTES of
// dynamic shared memory (configs/gemm_nvfp4.json). K % 32 == 0.
//
// Tunables:
//   N_TILES    activation rows per mma column block: 1 (M <= 8) or 2 (M <= 16).
//   ROW_TILES  16-row tiles of W per block, one warp row each.
//   K_WARPS    warps along K on each row tile; they take 128-k chunks in turn and add their sums in
//              shared memory.
//   STAGES     chunks of 128 k a warp has in flight: 1 loads each into registers as it goes;
//              2 or more keep a ring of that many in shared memory (cp.async), filled STAGES - 1
//              chunks ahead of the one decoded.
//   SPLIT_K    blocks along K, reduced by splitk.cuh (as gemv.cu).
//   AHEAD      STAGES 1 only: 1 loads a warp's next chunk into registers before it decodes this
//              one (two chunks in flight a warp where 0 has one: 10 more live values, still
//              under the 64-register bound).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "mma_sync.cuh"
#include "nvfp4.cuh"
#include "splitk.cuh"
#include "stream_load.cuh"

namespace nvfp4 {

// Activation pairs (k_i, k_i+4) of 8 consecutive values, to mirror decode_pair's order.
__device__ __forceinline__ void activation_pairs(const uint4& r, unsigned (&p)[4]) {
  p[0] = __byte_perm(r.x, r.z, 0x5410);
  p[1] = __byte_perm(r.x, r.z, 0x7632);
  p[2] = __byte_perm(r.y, r.w, 0x5410);
  p[3] = __byte_perm(r.y, r.w, 0x7632);
}

}  // namespace nvfp4

// Threads an SM must hold: loading into registers, 1024 (64 registers a thread; fewer left too
// little in flight to hide DRAM's latency); with the ring, whose loads hold no registers, 768.
template <int THREADS, int STAGES>
constexpr int nvfp4_blocks_per_sm() {
  constexpr int threads = STAGES == 1 ? 1024 : 768;
  return threads / THREADS > 0 ? threads / THREADS : 1;
}

template <typename T, int N_TILES, int ROW_TILES, int K_WARPS, int STAGES, int SPLIT_K, int AHEAD = 0>
__global__ void __launch_bounds__(ROW_TILES * K_WARPS * 32, (nvfp4_blocks_per_sm<ROW_TILES * K_WARPS * 32, STAGES>()))
ktune_gemv_nvfp4(const T* __restrict__ A, const unsigned char* __restrict__ W,
                 const unsigned char* __restrict__ W_scales, const float* __restrict__ tensor_scale,
                 T* __restrict__ C, int M, int N, int K, float* __restrict__ partials,
                 unsigned* __restrict__ arrivals) {
  using D = nvfp4::Dequant<T>;
  constexpr int THREADS = ROW_TILES * K_WARPS * 32;
  constexpr int ROWS = ROW_TILES * 16;  // weight rows (outputs along N) per block
  constexpr int MT = N_TILES * 8;       // activation rows per block
  static_assert(N_TILES == 1 || N_TILES == 2, "N_TILES: 1 or 2");
  static_assert(AHEAD == 0 || (AHEAD == 1 && STAGES == 1), "AHEAD: 0, or 1 with STAGES 1 (the ring runs ahead itself)");

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int rt = warp % ROW_TILES, kw = warp / ROW_TILES;
  const int g = lane / 4, q = lane % 4;
  const int n0 = blockIdx.x * ROWS;
  const int row = n0 + rt * 16 + g;  // this thread's weight rows: row and row + 8

  // This block's chunks of 128 k; those before whole_end lie wholly inside K, so only a last chunk
  // that K ends inside needs its pieces checked (K % 32 == 0: a piece is all in or all out).
  const int chunks = (K + 127) / 128;
  const int per_split = (chunks + SPLIT_K - 1) / SPLIT_K;
  const int c_begin = blockIdx.y * per_split;
  const int c_end = min(chunks, c_begin + per_split);
  const int whole_end = min(c_end, K / 128);

  // Weight rows past N read row N - 1 and activation rows past M read row M - 1, so no load needs
  // a predicate for them: their sums land in outputs that are never written.
  const long long w_ld = K / 2, s_ld = K / 16;
  const int rows_in[2] = {min(row, N - 1), min(row + 8, N - 1)};
  const unsigned char* const w_row[2] = {W + rows_in[0] * w_ld + q * 16, W + rows_in[1] * w_ld + q * 16};
  const unsigned char* const s_row[2] = {W_scales + rows_in[0] * s_ld + q * 2, W_scales + rows_in[1] * s_ld + q * 2};
  const T* a_row[N_TILES];
#pragma unroll
  for (int j = 0; j < N_TILES; ++j) a_row[j] = A + min(j * 8 + g, M - 1) * (long long)K + q * 32;

  float acc[N_TILES][4];
#pragma unroll
  for (int j = 0; j < N_TILES; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[j][i] = 0.f;

  extern __shared__ __align__(16) float smem[];

  // Decodes one chunk's words vu (rows row, row + 8) with their group scales su and multiplies them
  // by its activations x (rows j * 8 + g of A, 32 k, as 4 x 16 bytes).
  auto run_chunk = [&](const uint4 (&vu)[2], const unsigned (&su)[2], const uint4 (&x)[N_TILES][4]) {
    // Group scales of rows row, row + 8 for k 0-15 and 16-31 of the piece.
    unsigned scale[2][2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float2 f = nvfp4::e4m3_pair(su[r]);
      scale[r][0] = D::scale_pair(f.x);
      scale[r][1] = D::scale_pair(f.y);
    }
    const unsigned word[2][4] = {{vu[0].x, vu[0].y, vu[0].z, vu[0].w}, {vu[1].x, vu[1].y, vu[1].z, vu[1].w}};
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      unsigned b[N_TILES][4];
#pragma unroll
      for (int j = 0; j < N_TILES; ++j) nvfp4::activation_pairs(x[j][w], b[j]);
      const unsigned s0 = scale[0][w / 2], s1 = scale[1][w / 2];
      // Two mma steps a word: pairs (0, 1), then (2, 3).
      {
        const unsigned a[4] = {D::mul(nvfp4::decode_pair<T, 0>(word[0][w]), s0),
                               D::mul(nvfp4::decode_pair<T, 0>(word[1][w]), s1),
                               D::mul(nvfp4::decode_pair<T, 1>(word[0][w]), s0),
                               D::mul(nvfp4::decode_pair<T, 1>(word[1][w]), s1)};
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) mma_sync::Mma<T>::run(acc[j], a, {b[j][0], b[j][1]});
      }
      {
        const unsigned a[4] = {D::mul(nvfp4::decode_pair<T, 2>(word[0][w]), s0),
                               D::mul(nvfp4::decode_pair<T, 2>(word[1][w]), s1),
                               D::mul(nvfp4::decode_pair<T, 3>(word[0][w]), s0),
                               D::mul(nvfp4::decode_pair<T, 3>(word[1][w]), s1)};
#pragma unroll
        for (int j = 0; j < N_TILES; ++j) mma_sync::Mma<T>::run(acc[j], a, {b[j][2], b[j][3]});
      }
    }
  };

  // Chunk cu of this thread's piece, checked: nothing is read past K (zeros instead), nor past
  // c_end. For the ring, and for a last chunk that K ends inside.
  auto chunk_ok = [&](int cu) { return cu < c_end && cu * 128 + q * 32 < K; };
  auto scales = [&](int cu, int r) -> unsigned {
    return chunk_ok(cu) ? __ldg(reinterpret_cast<const unsigned short*>(s_row[r] + (long long)cu * 8)) : 0u;
  };
  auto activations = [&](int cu, uint4 (&x)[N_TILES][4]) {
    const bool ok = chunk_ok(cu);
#pragma unroll
    for (int j = 0; j < N_TILES; ++j)
#pragma unroll
      for (int w = 0; w < 4; ++w)
        x[j][w] = ok ? __ldg(reinterpret_cast<const uint4*>(a_row[j] + (long long)cu * 128) + w) : make_uint4(0, 0, 0, 0);
  };

  // Warp kw takes chunks kw, kw + K_WARPS, ... of the block's: per chunk 2 x 16 bytes of nibbles
  // (rows row and row + 8) and 2 x 2 scale bytes a thread.
  if constexpr (STAGES == 1) {
    // Straight from global memory into registers. The chunks wholly inside K go through pointers
    // that step K_WARPS chunks a load, with no predicate but the one that ends AHEAD's run. Checked
    // loads had the loop at 251 instructions a chunk (64 weights a thread), this at 216
    // (1 x 4096 x 14336, AHEAD=0, SASS in results/h200/nvfp4-lean-s32/): an H200's SMs issue about
    // 4 instructions a weight in the time its DRAM delivers one, so the decode runs near that bound.
    const int first = c_begin + kw;
    const unsigned char* wp[2] = {w_row[0] + first * 64ll, w_row[1] + first * 64ll};
    const unsigned char* sp[2] = {s_row[0] + first * 8ll, s_row[1] + first * 8ll};
    const T* ap[N_TILES];
#pragma unroll
    for (int j = 0; j < N_TILES; ++j) ap[j] = a_row[j] + first * 128ll;
    // Chunk (wp, sp)'s words and scales, then the pointers step to the warp's next chunk. Where
    // `ok` is false nothing is read and vu, su are zeros (a constant true folds the checks away).
    auto load = [&](uint4 (&vu)[2], unsigned (&su)[2], bool ok) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        vu[r] = load_stream16_l2_256(wp[r], ok);
        su[r] = ok ? __ldg(reinterpret_cast<const unsigned short*>(sp[r])) : 0u;
      }
#pragma unroll
      for (int r = 0; r < 2; ++r) wp[r] += K_WARPS * 64, sp[r] += K_WARPS * 8;
    };
    auto whole_activations = [&](uint4 (&x)[N_TILES][4]) {
#pragma unroll
      for (int j = 0; j < N_TILES; ++j) {
#pragma unroll
        for (int w = 0; w < 4; ++w) x[j][w] = __ldg(reinterpret_cast<const uint4*>(ap[j]) + w);
        ap[j] += K_WARPS * 128;
      }
    };
    int cu = first;
    if constexpr (AHEAD == 0) {
      for (; cu < whole_end; cu += K_WARPS) {
        uint4 vu[2], x[N_TILES][4];
        unsigned su[2];
        load(vu, su, true);
        whole_activations(x);
        run_chunk(vu, su, x);
      }
    } else {
      // The warp's next chunk is loaded before this one is decoded, so its DRAM latency passes
      // under the decode instead of after it: with 16 warps along K at K = 14336 a warp takes 7
      // chunks, and each otherwise waits out a whole load.
      uint4 vu[2], x[N_TILES][4];
      unsigned su[2];
      load(vu, su, cu < whole_end);
      for (; cu < whole_end; cu += K_WARPS) {
        uint4 vn[2];
        unsigned sn[2];
        load(vn, sn, cu + K_WARPS < whole_end);
        whole_activations(x);
        run_chunk(vu, su, x);
#pragma unroll
        for (int r = 0; r < 2; ++r) vu[r] = vn[r], su[r] = sn[r];
      }
    }
    if (cu < c_end) {  // the last chunk, which K ends inside
      const bool ok = chunk_ok(cu);
      uint4 vu[2], x[N_TILES][4];
      unsigned su[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        vu[r] = load_stream16_l2_256(w_row[r] + cu * 64ll, ok);
        su[r] = scales(cu, r);
      }
      activations(cu, x);
      run_chunk(vu, su, x);
    }
  } else {
    // A ring of STAGES chunks in shared memory, each thread's own bytes ([stage][row][thread], so
    // a warp's reads are contiguous): while one chunk is decoded the next STAGES - 1 are in flight,
    // and they hold no registers; the scales, 2 bytes a row, wait in registers.
    uint4* const ring = reinterpret_cast<uint4*>(smem);
    const unsigned ring_addr = static_cast<unsigned>(__cvta_generic_to_shared(ring));
    unsigned su[STAGES][2];
    auto issue = [&](int slot, int cu, unsigned (&sl)[2]) {
      const bool ok = chunk_ok(cu);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const unsigned dst = ring_addr + ((slot * 2 + r) * THREADS + threadIdx.x) * 16;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
                     "l"(w_row[r] + (long long)(ok ? cu : 0) * 64), "r"(ok ? 16 : 0)
                     : "memory");
        sl[r] = scales(cu, r);
      }
      asm volatile("cp.async.commit_group;\n" ::: "memory");
    };
#pragma unroll
    for (int st = 0; st < STAGES; ++st) issue(st, c_begin + kw + st * K_WARPS, su[st]);
    for (int c = c_begin + kw; c < c_end; c += STAGES * K_WARPS) {
#pragma unroll
      for (int st = 0; st < STAGES; ++st) {
        const int cu = c + st * K_WARPS;
        if (cu >= c_end) break;
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 1) : "memory");  // chunk cu has landed
        const uint4 vu[2] = {ring[(st * 2) * THREADS + threadIdx.x], ring[(st * 2 + 1) * THREADS + threadIdx.x]};
        const unsigned sc[2] = {su[st][0], su[st][1]};
        uint4 x[N_TILES][4];
        activations(cu, x);
        run_chunk(vu, sc, x);
        issue(st, cu + STAGES * K_WARPS, su[st]);  // refill the slot just read
      }
    }
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  }
  // The warps' sums below take the ring's place: every warp is done with it first.
  if constexpr (STAGES > 1) __syncthreads();

  // The K_WARPS warps of a row tile add their sums: [K_WARPS][MT][ROWS] floats. Thread (g, q)
  // holds outputs (rows g and g + 8 of its tile) x (activation rows j * 8 + 2q, + 1).
  float* const red = smem;
#pragma unroll
  for (int j = 0; j < N_TILES; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int m = j * 8 + 2 * q + (i & 1), n = rt * 16 + g + (i >> 1) * 8;
      red[(kw * MT + m) * ROWS + n] = acc[j][i];
    }
  __syncthreads();

  // Output i of the block: activation row i / ROWS, weight row n0 + i % ROWS (consecutive threads
  // write consecutive columns of C).
  const float factor = *tensor_scale * D::EPILOGUE_FACTOR;
  auto block_sum = [&](int i) {
    float sum = 0.f;
#pragma unroll
    for (int w = 0; w < K_WARPS; ++w) sum += red[w * MT * ROWS + i];
    return sum;
  };
  if (SPLIT_K == 1) {
    for (int i = threadIdx.x; i < MT * ROWS; i += THREADS) {
      const int m = i / ROWS, n = n0 + i % ROWS;
      if (m < M && n < N) C[(long long)m * N + n] = mma_sync::Mma<T>::convert(block_sum(i) * factor);
    }
    return;
  }
  for (int i = threadIdx.x; i < MT * ROWS; i += THREADS) {
    const int m = i / ROWS, n = n0 + i % ROWS;
    if (m < M && n < N) partials[((long long)blockIdx.y * M + m) * N + n] = block_sum(i);
  }
  splitk::reduce_splits<THREADS, MT * ROWS>(
      partials, (long long)M * N, SPLIT_K, blockIdx.y, arrivals + blockIdx.x * splitk::counters_per_tile(SPLIT_K),
      [&](int i, long long& off) {
        const int m = i / ROWS, n = n0 + i % ROWS;
        off = (long long)m * N + n;
        return m < M && n < N;
      },
      [&](int i, float sum) {
        C[(long long)(i / ROWS) * N + n0 + i % ROWS] = mma_sync::Mma<T>::convert(sum * factor);
      });
}
