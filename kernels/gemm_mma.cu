// gemm_mma.cu — tensor-core GEMM for sm_80 and later (Ampere, Ada, Hopper) through mma.sync.
//
// Computes C = A·B with fp32 accumulation.
//   C: M×N row-major (ldc = N).
//   A: M×K, row-major (lda = K) when A_ROW_MAJOR, else column-major (lda = M).
//   B: K×N, row-major (ldb = N) when B_ROW_MAJOR, else column-major (ldb = K).
//   T = __half / __nv_bfloat16: mma.sync m16n8k16, output rounded to T.
//   T = float: TF32 mma.sync m16n8k8 (operands rounded with cvt.rna.tf32.f32), fp32 output.
//   T = __nv_fp8_e4m3 (sm_89+, layout rc only: ldmatrix has no 8-bit transpose): mma.sync
//     m16n8k32, C = scale_a * scale_b * A·B stored as OUT (bf16), the scales read from the
//     device. Every other T has OUT = T and no scales.
//
// Launch: grid (cdiv(M,BLOCK_M)*cdiv(N,BLOCK_N), splits) of NUM_WARPS*32 threads, and exactly
// NUM_STAGES*(BLOCK_M+BLOCK_N)*BLOCK_K*sizeof(T) bytes of dynamic shared memory. A, B and C must
// be 16-byte aligned (as cudaMalloc returns them). Any M, N, K >= 1.
//
// Tunables (names as in configs/gemm_mma.json, which restates every constraint below):
//   BLOCK_M, BLOCK_N  block tile; powers of two, 32..256.
//   BLOCK_K           k depth of one pipeline stage; a power of two with BLOCK_K*sizeof(T) >= 64
//                     bytes (two mma k-steps at least, which the fragment double buffer needs).
//   NUM_WARPS         2, 4 or 8. The warps form a WARPS_M×WARPS_N grid chosen at compile time
//                     to make the warp tile squarest (warps_m() below); each warp tile must be a
//                     multiple of 16×16 and at most 64×64 (128 fp32 accumulators per thread;
//                     beyond that ptxas spills).
//   NUM_STAGES        depth of the cp.async pipeline, >= 2.
//   GROUP_M           rows of block tiles walked together (Triton's grouped order) so that a
//                     wave of blocks shares A and B panels in L2; >= 1.
//   ALIGNED           1: lda, ldb and ldc are multiples of 16/sizeof(T) elements, so every
//                     16-byte chunk of a row is wholly inside or outside the matrix: tiles
//                     arrive by 16-byte cp.async (zero-filled past the edges), and C leaves
//                     through shared memory in whole 16-byte chunks. 0: any shape (odd K, odd
//                     N, ...), into the same shared layout: 8-byte cp.async pieces when the
//                     leading dimension allows (16-bit elements with ld % 4 == 0), 4-byte ones
//                     for fp32, else aligned 4-byte loads into registers, funnel-shifted into
//                     place and stored to shared memory a k tile later (TileLoader::fetch_halves);
//                     C leaves through shared memory in runs of consecutive elements.
//   SPLIT             1: split-K over gridDim.y blocks per tile (the config derives how many
//                     from the SM count: a tiny output over a long K has too few tiles to fill
//                     the GPU). Each block sums its whole BLOCK_K tiles of K into fp32 partials
//                     in the workspace; splitk.cuh adds them up in a fixed order (in groups of
//                     8, the last block of each group to arrive, then the last group's) — the
//                     same sum whatever the arrival order — and writes C. 0: gridDim.y is 1.
//                     ktune_gemm_mma_cluster (sm_90+, at the end of this file) is the same
//                     kernel with split-K always on and its slices in clusters of CLUSTER_K
//                     blocks, which add their tiles in distributed shared memory first
//                     (splitk_cluster.cuh): many more slices than the plain reduction can add up.
//
// Design. Each operand tile is stored in shared memory with its global contiguous dimension
// contiguous, so global reads stay 16-byte coalesced whatever the layout. 16-byte chunks are
// XOR-swizzled so that the 8 rows one ldmatrix phase reads land in 8 different bank groups.
// K-contiguous tiles feed mma.sync through ldmatrix.x4; MN-contiguous 16-bit tiles through
// ldmatrix.x4.trans; MN-contiguous tf32 tiles (ldmatrix cannot transpose 32-bit elements)
// through plain 32-bit shared loads with their own swizzle. Fragments for k-step s+1 load
// while the mma for step s run. __launch_bounds__ names one block per SM as the minimum:
// without it ptxas sometimes caps registers for two blocks and spills a few bytes.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "mma_sync.cuh"
#include "splitk.cuh"
#include "tile_order.cuh"

// Thread-block clusters exist from sm_90 on; the rest of this file must still build for sm_80.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#include "splitk_cluster.cuh"
#define KTUNE_HAS_CLUSTERS 1
#else
#define KTUNE_HAS_CLUSTERS 0
#endif

namespace gemm_mma_detail {

using namespace mma_sync;

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ constexpr int imin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

// Warps along M: the power of two w ≤ num_warps whose warp tile (bm/w)×(bn·w/num_warps) is
// squarest, ties going to the taller tile. configs/gemm_mma.json's WARPS_M spells the same rule
// as "the largest w with w²·bn < 2·bm·num_warps".
__host__ __device__ constexpr int warps_m(int bm, int bn, int num_warps) {
  int w = 1;
  while (w * 2 <= num_warps && (w * 2) * (w * 2) * bn < 2 * bm * num_warps) w *= 2;
  return w;
}

// Where 16-byte chunk (row, chunk) of a tile with CPR chunks per row lives. The XOR key stays
// below 8, so it permutes the chunks of one aligned 128-byte line (8 chunks). For rows of >= 8
// chunks the key comes from the row, for shorter rows from the line. KEY_MUL = 1 serves ldmatrix,
// which reads one chunk column of 8 consecutive rows: 8 distinct keys. KEY_MUL = 2 serves the
// 32-bit loads of MN-contiguous tf32 tiles, where a warp reads 4 rows × 2 adjacent chunks: keys
// 0, 2, 4, 6 on those 4 rows keep all 8 chunks apart.
template <int CPR, int KEY_MUL>
struct Swizzle {
  // Rows after which the key repeats: a row step that is a multiple of it leaves the key alone.
  static constexpr int PERIOD = (CPR >= 8 ? 8 : 64 / CPR) / KEY_MUL;

  static __host__ __device__ __forceinline__ int key(int row) {
    return ((CPR >= 8 ? row : (row * CPR) >> 3) * KEY_MUL) & 7;
  }
  static __host__ __device__ __forceinline__ int at(int row, int chunk) {
    return (row * CPR + chunk) ^ key(row);
  }
  // at(row + drow, chunk + dchunk) given p = at(row, chunk), for compile-time deltas with drow a
  // multiple of PERIOD and dchunk sharing no set bit with chunk. Then the low three bits of dchunk
  // XOR into p and the rest adds, so each lane keeps one base register per operand and every
  // fragment address is that base, one LOP3 and an immediate offset.
  static __host__ __device__ __forceinline__ int moved(int p, int drow, int dchunk) {
    return (p ^ (dchunk & 7)) + (dchunk & ~7) + drow * CPR;
  }
};

__device__ __forceinline__ unsigned lds32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

// A predicated read-only load: zero where `pred` is false, without a branch around the load
// (which is what a C++ conditional around __ldg compiles to).
__device__ __forceinline__ unsigned load_word_or_zero(const unsigned* p, bool pred) {
  unsigned v;
  asm("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n mov.b32 %0, 0;\n @q ld.global.nc.b32 %0, [%1];\n}\n"
      : "=r"(v)
      : "l"(p), "r"((int)pred));
  return v;
}

// Copies one operand's k tile (ROWS × COLS elements, COLS contiguous in global and in shared
// memory) into a swizzled stage. K runs along the columns (K_IN_COLS) or the rows. Each thread
// owns the same chunk column of rows r, r+ROW_STEP, ...; its pointer and edge distances move
// one k tile per call.
template <typename T, int ROWS, int COLS, int THREADS, bool K_IN_COLS, int ALIGNED, int KEY_MUL>
struct TileLoader {
  static constexpr int CH = 16 / sizeof(T);  // elements per 16-byte chunk
  static constexpr int CPR = COLS / CH;      // chunks per row
  using Swz = Swizzle<CPR, KEY_MUL>;
  static constexpr int ROW_STEP = THREADS / CPR;
  static constexpr int ITERS = cdiv(ROWS * CPR, THREADS);
  static_assert(COLS % CH == 0 && is_pow2(CPR), "tile rows: a power-of-two number of chunks");
  static_assert(THREADS % CPR == 0, "each thread must keep one chunk column");

  const T* ptr_;   // this thread's first chunk in the next k tile
  long long ld_;
  int rows_left_;  // rows from this thread's first row to the matrix edge
  int cols_left_;  // columns from this thread's chunk to the matrix edge
  int row_, chunk_;
  int slot_;       // swizzled chunk index of this thread's first chunk

  __device__ TileLoader(const T* base, int ld, int rows_total, int cols_total, int row0, int col0)
      : ld_(ld), row_(threadIdx.x / CPR), chunk_(threadIdx.x % CPR) {
    rows_left_ = rows_total - row0 - row_;
    cols_left_ = cols_total - col0 - chunk_ * CH;
    ptr_ = base + (long long)(row0 + row_) * ld + col0 + chunk_ * CH;
    slot_ = Swz::at(row_, chunk_);
  }

  // Swizzled chunk index of this thread's chunk `r` rows further down.
  __device__ __forceinline__ int slot(int r) const {
    return ROW_STEP % Swz::PERIOD == 0 ? Swz::moved(slot_, r, 0) : Swz::at(row_ + r, chunk_);
  }

  __device__ __forceinline__ void advance() {
    if (K_IN_COLS) {
      ptr_ += COLS;
      cols_left_ -= COLS;
    } else {
      ptr_ += ROWS * ld_;
      rows_left_ -= ROWS;
    }
  }

  // ALIGNED: a chunk is wholly inside the matrix or wholly outside.
  // An address past the edge is passed as is: with src_bytes = 0 it is never read.
  __device__ __forceinline__ void load_chunks(unsigned stage) {
    const T* src = ptr_;
#pragma unroll
    for (int it = 0; it < ITERS; ++it, src += ROW_STEP * ld_) {
      const int r = it * ROW_STEP;
      if (ITERS * THREADS != ROWS * CPR && row_ + r >= ROWS) break;
      cp_async_16(stage + 16 * slot(r), src, r < rows_left_ && cols_left_ > 0 ? 16 : 0);
    }
  }

  // Any shape whose rows start PIECE-byte aligned (ld·sizeof(T) a multiple of PIECE): each
  // chunk arrives as 16/PIECE asynchronous PIECE-byte copies, the one at the edge partly
  // zero-filled. (As above, an address past the edge goes with src_bytes = 0 and is not read.)
  template <int PIECE>
  __device__ __forceinline__ void load_pieces(unsigned stage) {
    constexpr int ELEMS = PIECE / (int)sizeof(T);  // elements per piece
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int r = it * ROW_STEP;
      if (ITERS * THREADS != ROWS * CPR && row_ + r >= ROWS) break;
#pragma unroll
      for (int q = 0; q < 16 / PIECE; ++q) {
        const int in_range = r < rows_left_ ? cols_left_ - q * ELEMS : 0;  // elements
        const int bytes = in_range >= ELEMS ? PIECE : in_range > 0 ? in_range * (int)sizeof(T) : 0;
        cp_async_ca<PIECE>(stage + 16 * slot(r) + q * PIECE, ptr_ + r * ld_ + q * ELEMS, bytes);
      }
    }
  }

  // Any shape, 16-bit elements whose rows start only 2-byte aligned (odd ld, where cp.async has
  // no piece small enough): register-staged. fetch_halves() issues aligned 4-byte loads of the
  // next k tile into registers and returns at once; store_halves(), called one k tile's worth of
  // mma later, funnel-shifts the words into place, zeroes what lies past the edges and writes
  // the same swizzled chunks cp.async would have. A chunk that starts on an odd element reads the
  // word before it (part of the previous row, inside the matrix) and one word more.
  // ROW_STEP is even, so every row of this thread has the parity of its first: one shift.
  static constexpr int WORDS = 5;  // 4-byte words that cover 8 elements at any 2-byte offset
  unsigned staged_[ITERS][WORDS];
  int staged_cols_left_;  // cols_left_ at fetch time (rows past the edge fetch zeros)

  __device__ __forceinline__ int odd_start() const {
    return (int)(reinterpret_cast<unsigned long long>(ptr_) >> 1) & 1;
  }

  __device__ __forceinline__ void fetch_halves() {
    static_assert(ROW_STEP % 2 == 0, "rows of one thread must share their alignment");
    const int odd = odd_start();
    staged_cols_left_ = cols_left_;
    // Which of the five words hold an element inside the row: word j holds elements 2j - odd
    // and 2j - odd + 1 of the chunk. The fifth is needed only when the chunk starts odd. (A
    // word that straddles the end of the matrix stays inside the allocation's 4-byte granule.)
    bool word_ok[WORDS];
#pragma unroll
    for (int j = 0; j < WORDS; ++j) word_ok[j] = (j == 0 ? 0 : 2 * j - odd) < cols_left_;
    word_ok[WORDS - 1] = word_ok[WORDS - 1] && odd;
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int r = it * ROW_STEP;
      if (ITERS * THREADS != ROWS * CPR && row_ + r >= ROWS) break;
      const bool row_ok = r < rows_left_;
      const unsigned* words = reinterpret_cast<const unsigned*>(ptr_ + r * ld_ - odd);
#pragma unroll
      for (int j = 0; j < WORDS; ++j) staged_[it][j] = load_word_or_zero(words + j, row_ok && word_ok[j]);
    }
  }

  // advance() moves ptr_ by whole chunks or by an even number of rows: the parity holds.
  __device__ __forceinline__ void store_halves(unsigned char* stage) const {
    const int shift = 16 * odd_start();
#pragma unroll
    for (int it = 0; it < ITERS; ++it) {
      const int r = it * ROW_STEP;
      if (ITERS * THREADS != ROWS * CPR && row_ + r >= ROWS) break;
      unsigned w[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) w[e] = __funnelshift_r(staged_[it][e], staged_[it][e + 1], shift);
      if (staged_cols_left_ < CH) {  // the chunk crosses the row's end: zero what lies past it
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          if (2 * e >= staged_cols_left_) w[e] = 0u;
          else if (2 * e + 1 >= staged_cols_left_) w[e] &= 0xffffu;
        }
      }
      *reinterpret_cast<uint4*>(stage + 16 * slot(r)) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }

  // Rows of 16-bit elements that start only 2-byte aligned: the register-staged path.
  __device__ __forceinline__ bool staged() const {
    return !ALIGNED && sizeof(T) == 2 && ld_ % 4 != 0;
  }

  // Starts the copy of the next k tile into a stage. The row alignment test is the same for
  // every thread: no divergence. Two paths per type at most: each one more raises the register
  // count of the whole kernel (tf32 has no room).
  __device__ __forceinline__ void load(unsigned stage_addr) {
    if (ALIGNED)
      load_chunks(stage_addr);
    else if (sizeof(T) == 4)
      load_pieces<4>(stage_addr);
    else if (!staged())
      load_pieces<8>(stage_addr);
    else
      fetch_halves();
  }

  // Completes a staged copy (a no-op for the cp.async paths, whose copies complete themselves).
  __device__ __forceinline__ void finish(unsigned char* stage_ptr) const {
    if (staged()) store_halves(stage_ptr);
  }
};

}  // namespace gemm_mma_detail

// The kernel's whole work; the entry points below differ only in how split-K adds its slices up
// (CLUSTER_K, the CTAs of a cluster: 1 for none).
template <typename T, typename OUT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_WARPS, int NUM_STAGES, int GROUP_M, int ALIGNED, int SPLIT, int CLUSTER_K>
__device__ __forceinline__ void ktune_gemm_mma_body(const T* __restrict__ A, const T* __restrict__ B,
                                                    OUT* __restrict__ C, int M, int N, int K,
                                                    const float* __restrict__ scale_a,
                                                    const float* __restrict__ scale_b, float* __restrict__ partials,
                                                    unsigned* __restrict__ arrivals) {
  using namespace gemm_mma_detail;
  using Op = Mma<T>;
  using Out = Mma<OUT>;  // how results are rounded and stored
  constexpr bool FP8 = sizeof(T) == 1;
  static_assert(!FP8 || (A_ROW_MAJOR && !B_ROW_MAJOR), "fp8: layout rc only (K-contiguous operands)");
  constexpr int THREADS = NUM_WARPS * 32;
  constexpr int CH = 16 / sizeof(T);
  constexpr int KS = Op::K_STEP;
  constexpr int K_STEPS = BLOCK_K / KS;
  constexpr bool TF32 = sizeof(T) == 4;
  constexpr int WARPS_M = warps_m(BLOCK_M, BLOCK_N, NUM_WARPS);
  constexpr int WARPS_N = NUM_WARPS / WARPS_M;
  constexpr int WM = BLOCK_M / WARPS_M, WN = BLOCK_N / WARPS_N;
  constexpr int MI = WM / 16, NI = WN / 8;  // mma tiles per warp along M and N
  static_assert(is_pow2(NUM_WARPS) && NUM_WARPS >= 2 && NUM_WARPS <= 8, "NUM_WARPS: 2, 4 or 8");
  static_assert(is_pow2(BLOCK_M) && is_pow2(BLOCK_N) && BLOCK_M >= 32 && BLOCK_N >= 32,
                "BLOCK_M, BLOCK_N: powers of two, at least 32");
  static_assert(is_pow2(BLOCK_K) && K_STEPS >= 2, "BLOCK_K: a power of two, >= two mma k-steps");
  static_assert(WM % 16 == 0 && WN % 16 == 0, "warp tile must be a multiple of 16x16");
  static_assert(WM * WN <= 64 * 64, "warp tile over 64x64: accumulators would spill");
  static_assert(NUM_STAGES >= 2 && GROUP_M >= 1, "NUM_STAGES >= 2, GROUP_M >= 1");

  // Block tile, in grouped order: GROUP_M rows of tiles are walked column by column.
  const KtuneTile block_tile = ktune_grouped_tile(blockIdx.x, cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
  const int m0 = block_tile.m * BLOCK_M;
  const int n0 = block_tile.n * BLOCK_N;

  // Shared layout: all A stages, then all B stages.
  // A tile: [BLOCK_M][BLOCK_K] when row-major (K contiguous), else [BLOCK_K][BLOCK_M].
  // B tile: [BLOCK_K][BLOCK_N] when row-major (N contiguous), else [BLOCK_N][BLOCK_K].
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int A_STAGE = BLOCK_M * BLOCK_K * (int)sizeof(T);
  constexpr int B_STAGE = BLOCK_N * BLOCK_K * (int)sizeof(T);
  unsigned char* const a_smem = smem;
  unsigned char* const b_smem = smem + NUM_STAGES * A_STAGE;
  const unsigned a_addr = (unsigned)__cvta_generic_to_shared(a_smem);
  const unsigned b_addr = (unsigned)__cvta_generic_to_shared(b_smem);

  // tf32 tiles that are MN-contiguous are read by 32-bit loads, the rest by ldmatrix.
  constexpr int A_KEY = TF32 && !A_ROW_MAJOR ? 2 : 1, B_KEY = TF32 && B_ROW_MAJOR ? 2 : 1;
  using LoadA = TileLoader<T, A_ROW_MAJOR ? BLOCK_M : BLOCK_K, A_ROW_MAJOR ? BLOCK_K : BLOCK_M,
                           THREADS, A_ROW_MAJOR != 0, ALIGNED, A_KEY>;
  using LoadB = TileLoader<T, B_ROW_MAJOR ? BLOCK_K : BLOCK_N, B_ROW_MAJOR ? BLOCK_N : BLOCK_K,
                           THREADS, B_ROW_MAJOR == 0, ALIGNED, B_KEY>;
  using SwzA = typename LoadA::Swz;
  using SwzB = typename LoadB::Swz;
  // This block's slice of K: whole k tiles, so only the last split meets K's own edge.
  const int splits = SPLIT ? (int)gridDim.y : 1;
  const int k_slice = cdiv(cdiv(K, splits), BLOCK_K) * BLOCK_K;
  const int k_begin = SPLIT ? (int)blockIdx.y * k_slice : 0;
  const int k_end = SPLIT ? min(K, k_begin + k_slice) : K;
  LoadA load_a = A_ROW_MAJOR ? LoadA(A, K, M, k_end, m0, k_begin) : LoadA(A, M, k_end, M, k_begin, m0);
  LoadB load_b = B_ROW_MAJOR ? LoadB(B, N, k_end, N, k_begin, n0) : LoadB(B, K, N, k_end, n0, k_begin);

  const int k_tiles = cdiv(k_end - k_begin, BLOCK_K);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int g = lane / 4, t = lane % 4;  // mma fragment coordinates

  // Issues the copy of the next k tile into stage `s`. Past the last tile the loaders' edge
  // distances along K are <= 0, so the copy degenerates to zero-fill of a stage nobody reads:
  // no branch, and ptxas can interleave the copies with the mma.
  auto issue = [&](int s) {
    load_a.load(a_addr + s * A_STAGE);
    load_b.load(b_addr + s * B_STAGE);
    load_a.advance();
    load_b.advance();
    cp_async_commit();
  };
  // Completes the register-staged copy into stage `s` (odd leading dimensions only), as late
  // as possible so that the loads have a whole k tile of mma to land in: just before the next
  // copy is issued. The stage is first read NUM_STAGES - 2 barriers later, so with two stages
  // the copy must land before this k tile's barrier instead.
  constexpr bool FINISH_AT_NEXT_ISSUE = NUM_STAGES >= 3;
  auto finish = [&](int s) {
    load_a.finish(a_smem + s * A_STAGE);
    load_b.finish(b_smem + s * B_STAGE);
  };

  // Each lane's swizzled chunk for its first fragment (mma tile 0, k-step 0); every other
  // fragment address is a Swizzle::moved() of it. Tile layouts and ldmatrix matrix order:
  //   A [m][k]: (m0-7,k0-7) (m8-15,k0-7) (m0-7,k8-15) (m8-15,k8-15)   = a0 a1 a2 a3
  //   A [k][m], .trans: the same four matrices, stored transposed
  //   B [n][k]: (n0-7,k0-7) (n0-7,k8-15) (n8-15,k0-7) (n8-15,k8-15)   = b0 b1 of n-tiles 2p, 2p+1
  //   B [k][n], .trans: the same four matrices, stored transposed
  // (for tf32 read "k0-7" as "k0-3": a chunk holds 4 elements). tf32 MN-contiguous tiles: lane
  // (g, t) reads element (k = t, mn = g) and its neighbours at k+4 and mn+8 with 32-bit loads.
  int a_slot, b_slot;
  if (A_ROW_MAJOR)
    a_slot = SwzA::at(wm * WM + lane % 16, lane / 16);
  else if (!TF32)
    a_slot = SwzA::at((lane / 16) * 8 + lane % 8, wm * WM / CH + (lane / 8) % 2);
  else
    a_slot = SwzA::at(t, wm * WM / CH + g / CH);
  if (!B_ROW_MAJOR)
    b_slot = SwzB::at(wn * WN + (lane / 16) * 8 + lane % 8, (lane / 8) % 2);
  else if (!TF32)
    b_slot = SwzB::at(((lane / 8) % 2) * 8 + lane % 8, wn * WN / CH + lane / 16);
  else
    b_slot = SwzB::at(t, wn * WN / CH + g / CH);
  const int tf32_elem = 4 * (g % CH);  // byte offset inside the chunk, MN-contiguous tf32 only

  // Fragment loads for k-step `ks` from the stage at shared address `base`.
  auto load_a_frags = [&](unsigned (&af)[MI][4], unsigned base, int ks) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
      if (A_ROW_MAJOR) {
        ldmatrix_x4(af[mi], base + 16 * SwzA::moved(a_slot, mi * 16, ks * 2));
      } else if (!TF32) {
        ldmatrix_x4_trans(af[mi], base + 16 * SwzA::moved(a_slot, ks * 16, mi * 2));
      } else {  // a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
#pragma unroll
        for (int i = 0; i < 4; ++i)
          af[mi][i] = lds32(base + tf32_elem +
                            16 * SwzA::moved(a_slot, ks * KS + (i / 2) * 4, mi * 4 + (i % 2) * 2));
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) af[mi][i] = Op::operand(af[mi][i]);
    }
  };
  auto load_b_frags = [&](unsigned (&bf)[NI][2], unsigned base, int ks) {
#pragma unroll
    for (int p = 0; p < NI / 2; ++p) {
      unsigned r[4];
      if (!B_ROW_MAJOR) {
        ldmatrix_x4(r, base + 16 * SwzB::moved(b_slot, p * 16, ks * 2));
      } else if (!TF32) {
        ldmatrix_x4_trans(r, base + 16 * SwzB::moved(b_slot, ks * 16, p * 2));
      } else {  // b0 (k t, n g), b1 (k t+4, n g), then the same for n g+8
#pragma unroll
        for (int i = 0; i < 4; ++i)
          r[i] = lds32(base + tf32_elem +
                       16 * SwzB::moved(b_slot, ks * KS + (i % 2) * 4, p * 4 + (i / 2) * 2));
      }
      bf[2 * p][0] = Op::operand(r[0]);
      bf[2 * p][1] = Op::operand(r[1]);
      bf[2 * p + 1][0] = Op::operand(r[2]);
      bf[2 * p + 1][1] = Op::operand(r[3]);
    }
  };

  float acc[MI][NI][4];
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[mi][ni][i] = 0.f;

  // Prologue: NUM_STAGES-1 tiles in flight, then the first fragments.
#pragma unroll
  for (int s = 0; s < NUM_STAGES - 1; ++s) {
    issue(s);
    finish(s);
  }
  cp_async_wait<NUM_STAGES - 2>();
  __syncthreads();

  unsigned af[2][MI][4], bf[2][NI][2];
  int read_stage = 0, write_stage = NUM_STAGES - 1, fill_stage = 0;
  unsigned a_read = a_addr, b_read = b_addr;
  load_a_frags(af[0], a_read, 0);
  load_b_frags(bf[0], b_read, 0);

  for (int kt = 0; kt < k_tiles; ++kt) {
#pragma unroll
    for (int ks = 0; ks < K_STEPS; ++ks) {
      if (ks == K_STEPS - 1) {
        if (!FINISH_AT_NEXT_ISSUE) finish(fill_stage);
        // Tile kt+1 must have landed, and every warp must be done with the stage that the
        // next issue() overwrites (its last fragments were read before this barrier).
        cp_async_wait<NUM_STAGES - 2>();
        __syncthreads();
        read_stage = read_stage == NUM_STAGES - 1 ? 0 : read_stage + 1;
        a_read = a_addr + read_stage * A_STAGE;
        b_read = b_addr + read_stage * B_STAGE;
      }
      if (ks == 0) {  // before the next fragments load: fewer registers live during the issue
        if (FINISH_AT_NEXT_ISSUE && kt > 0) finish(fill_stage);
        issue(write_stage);  // k tile kt + NUM_STAGES - 1
        fill_stage = write_stage;
        write_stage = write_stage == NUM_STAGES - 1 ? 0 : write_stage + 1;
      }
      const int next = (ks + 1) % K_STEPS;
      load_a_frags(af[(ks + 1) % 2], a_read, next);
      load_b_frags(bf[(ks + 1) % 2], b_read, next);
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni) {
          const int nj = mi % 2 ? NI - 1 - ni : ni;  // serpentine: reuse the last B fragment
          Op::run(acc[mi][nj], af[ks % 2][mi], bf[ks % 2][nj]);
        }
    }
  }
  cp_async_wait<0>();

  const float scale = FP8 ? *scale_a * *scale_b : 1.f;
  static_assert(CLUSTER_K == 1 || (SPLIT && KTUNE_HAS_CLUSTERS), "clusters: split-K on sm_90 and newer");
#if KTUNE_HAS_CLUSTERS
  if constexpr (CLUSTER_K > 1) {
    // Split-K over clusters: the block's fp32 tile goes to its own shared memory, the cluster
    // adds its CLUSTER_K tiles there, and only the clusters' sums meet in global memory
    // (splitk_cluster.cuh).
    constexpr int PITCH = splitk::cluster_tile_pitch(BLOCK_N);
    static_assert(BLOCK_M * PITCH * 4 <= NUM_STAGES * (A_STAGE + B_STAGE),
                  "the fp32 tile must fit in the pipeline's shared memory");
    float* const tile = reinterpret_cast<float*>(smem);
    __syncthreads();  // every warp is done reading the pipeline stages
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<float2*>(tile + (wm * WM + mi * 16 + g + 8 * h) * PITCH + wn * WN + ni * 8 + 2 * t) =
              make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
    splitk::reduce_in_cluster<THREADS, CLUSTER_K, BLOCK_M, BLOCK_N>(
        tile, partials, arrivals, [&](int row, int col, float4 sum) {
          const float v[4] = {sum.x, sum.y, sum.z, sum.w};
          const int m = m0 + row;
#pragma unroll
          for (int j = 0; j < 4; ++j)
            if (m < M && n0 + col + j < N) C[(long long)m * N + n0 + col + j] = Out::convert(scale * v[j]);
        });
    return;
  }
#endif
  if (SPLIT) {
    // Split-K: partials[split][m][n] in fp32, straight from the fragments; the splits are added
    // in order (splitk.cuh, in groups) and the last block writes C.
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < NI; ++ni)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int m = m0 + wm * WM + mi * 16 + g + (c >= 2 ? 8 : 0);
          const int n = n0 + wn * WN + ni * 8 + 2 * t + (c & 1);
          if (m < M && n < N) partials[((long long)blockIdx.y * M + m) * N + n] = acc[mi][ni][c];
        }
    splitk::reduce_splits<THREADS, BLOCK_M * BLOCK_N>(
        partials, (long long)M * N, gridDim.y, blockIdx.y,
        arrivals + blockIdx.x * splitk::counters_per_tile(gridDim.y),
        [&](int i, long long& off) {
          const int m = m0 + i / BLOCK_N, n = n0 + i % BLOCK_N;
          off = (long long)m * N + n;
          return m < M && n < N;
        },
        [&](int i, float sum) { C[(long long)(m0 + i / BLOCK_N) * N + n0 + i % BLOCK_N] = Out::convert(scale * sum); });
    return;
  }

  // Epilogue. Each thread holds (g, 2t..2t+1) and (g+8, 2t..2t+1) of every 16×8 mma tile.
  // Each warp passes its tile through shared memory 16 rows at a time, so that global stores
  // cover whole sectors: 16-byte chunks when ALIGNED, else runs of 32 consecutive elements (a
  // row of odd ldc starts on any element, so nothing wider than one element is aligned), instead
  // of the fragments' scattered 4- or 8-byte pieces. The row pitch of WN + 8 elements spreads the
  // 8 rows of a fragment store over all 32 banks.
  constexpr int PITCH = WN + 8;
  constexpr int OUT_CH = 16 / (int)sizeof(OUT);  // elements of C per 16-byte chunk
  constexpr int ROW_CHUNKS = WN / OUT_CH;
  static_assert(NUM_WARPS * 16 * PITCH * (int)sizeof(OUT) <= NUM_STAGES * (A_STAGE + B_STAGE),
                "epilogue staging must fit in the pipeline's shared memory");
  static_assert(16 * ROW_CHUNKS % 32 == 0 && 16 * WN % 32 == 0, "a warp stores whole rounds");
  OUT* const slice = reinterpret_cast<OUT*>(smem) + warp * 16 * PITCH;
  __syncthreads();  // every warp is done reading the pipeline stages
#pragma unroll
  for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h)
        Out::store2(slice + (g + h * 8) * PITCH + ni * 8 + 2 * t, scale * acc[mi][ni][2 * h],
                    scale * acc[mi][ni][2 * h + 1]);
    __syncwarp();
    const int row0 = m0 + wm * WM + mi * 16, col0 = n0 + wn * WN;
    if (ALIGNED) {
#pragma unroll
      for (int i = lane; i < 16 * ROW_CHUNKS; i += 32) {
        const int r = i / ROW_CHUNKS, c = (i % ROW_CHUNKS) * OUT_CH;
        // N is a multiple of the chunk: a chunk is wholly inside or outside.
        if (row0 + r < M && col0 + c < N)
          *reinterpret_cast<uint4*>(C + (long long)(row0 + r) * N + col0 + c) =
              *reinterpret_cast<const uint4*>(slice + r * PITCH + c);
      }
    } else {
#pragma unroll 4
      for (int i = lane; i < 16 * WN; i += 32) {
        const int r = i / WN, c = i % WN;
        if (row0 + r < M && col0 + c < N) C[(long long)(row0 + r) * N + col0 + c] = slice[r * PITCH + c];
      }
    }
    __syncwarp();  // the slice is rewritten for the next mi
  }
}

template <typename T, typename OUT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_WARPS, int NUM_STAGES, int GROUP_M, int ALIGNED, int SPLIT>
__global__ void __launch_bounds__(NUM_WARPS * 32, 1)
ktune_gemm_mma(const T* __restrict__ A, const T* __restrict__ B, OUT* __restrict__ C, int M, int N, int K,
               const float* __restrict__ scale_a, const float* __restrict__ scale_b,
               float* __restrict__ partials, unsigned* __restrict__ arrivals) {
  ktune_gemm_mma_body<T, OUT, A_ROW_MAJOR, B_ROW_MAJOR, BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS, NUM_STAGES, GROUP_M,
                      ALIGNED, SPLIT, 1>(A, B, C, M, N, K, scale_a, scale_b, partials, arrivals);
}

#if KTUNE_HAS_CLUSTERS
// Split-K over clusters of CLUSTER_K blocks along gridDim.y (sm_90 and newer; configs/
// gemm_mma_cluster.json): gridDim.y, a multiple of CLUSTER_K, slices K; the blocks of a cluster
// hold slices of the same tile and add them up in distributed shared memory.
template <typename T, typename OUT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_WARPS, int NUM_STAGES, int GROUP_M, int ALIGNED, int CLUSTER_K>
__global__ void __cluster_dims__(1, CLUSTER_K, 1) __launch_bounds__(NUM_WARPS * 32, 1)
ktune_gemm_mma_cluster(const T* __restrict__ A, const T* __restrict__ B, OUT* __restrict__ C, int M, int N,
                       int K, const float* __restrict__ scale_a, const float* __restrict__ scale_b,
                       float* __restrict__ partials, unsigned* __restrict__ arrivals) {
  ktune_gemm_mma_body<T, OUT, A_ROW_MAJOR, B_ROW_MAJOR, BLOCK_M, BLOCK_N, BLOCK_K, NUM_WARPS, NUM_STAGES, GROUP_M,
                      ALIGNED, 1, CLUSTER_K>(A, B, C, M, N, K, scale_a, scale_b, partials, arrivals);
}
#endif
