// gemv_dot.cu — GEMM with at most 16 rows or at most 16 columns whose large operand is
// K-contiguous, for any sm_80+ GPU, on the tensor cores.
//
// Two shapes of problem are one kernel here. Call the operand with <= 16 rows along the small
// dimension X and the other one Y:
//   SMALL_N = 1:  N <= 16, A row-major.     X = B^T (N×K), Y = A   (M×K), C[j][i] = C[j*N + i]
//   SMALL_N = 0:  M <= 16, B column-major.  X = A   (M×K), Y = B^T (N×K), C[i][j] = C[i*N + j]
// (i indexes the small dimension, j the large one). Every output is a dot product of a row of Y
// with a row of X over K, and Y — read once, K-contiguous — is what the time goes to: the kernel
// is a stream over Y. (The other layouts, whose large operand is contiguous along the large
// dimension, are gemv.cu's.)
//
// Why the tensor cores, when the work is a stream: at N = 16 the CUDA cores' fp32 FMAs would
// take about as long as reading Y, and reducing each dot product across a warp costs shuffles.
// An m16n8 mma takes 16 rows of Y and 8 rows of X and keeps every dot product in its own
// accumulator, so nothing is reduced until the end. A dot product does not care in what order
// its k terms come, so each lane loads 16 contiguous bytes of a row of Y and the same 16 bytes'
// k positions of a row of X, and feeds them to the mma's k slots as they come: lanes with the
// same t = lane % 4 hold the same k positions in both operands, which is all the mma needs.
//
// Launch: grid (cdiv(J, WARPS * ROW_TILES * 16), SPLIT_K), WARPS*32 threads, SMEM_BYTES of
// dynamic shared memory as configs/gemm_dot.json computes it. K * sizeof(T) must be a multiple
// of 16 (whole 16-byte pieces of every row of Y).
//
// Tunables:
//   N_TILES    8-row tiles of X (1: up to 8 rows, 2: up to 16).
//   WARPS      warps per block; each streams its own rows of Y over the block's K slice.
//   ROW_TILES  16-row tiles of Y per warp (each X load then serves that many mma pairs).
//   UNROLL     64-byte k segments a lane loads per row before its mma (the bytes it has in flight).
//   SPLIT_K    blocks along K. Each writes fp32 partial sums; splitk.cuh adds them in a fixed
//              order (in groups of 8, the last block of each group to arrive, then the last
//              group's) — the same sum whatever the arrival order — and writes C.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "mma_sync.cuh"
#include "splitk.cuh"
#include "stream_load.cuh"

// The registers a thread needs (stream_load.cuh): its ROW_TILES x 2 x UNROLL 16-byte loads in
// flight, the N_TILES pieces of X, its accumulators and row pointers, and about 24 more.
template <int N_TILES, int WARPS, int ROW_TILES, int UNROLL>
constexpr int gemv_dot_blocks_per_sm() {
  return stream_blocks_per_sm(WARPS * 32, ROW_TILES * 2 * UNROLL * 4 + N_TILES * 4 + ROW_TILES * N_TILES * 4 +
                                              ROW_TILES * 4 + 24);
}

template <typename T, int A_ROW_MAJOR, int B_ROW_MAJOR, int SMALL_N, int N_TILES, int WARPS,
          int ROW_TILES, int UNROLL, int SPLIT_K>
__global__ void __launch_bounds__(WARPS * 32, (gemv_dot_blocks_per_sm<N_TILES, WARPS, ROW_TILES, UNROLL>()))
ktune_gemv_dot(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N,
               int K, const float* /*scale_a*/, const float* /*scale_b*/,
               float* __restrict__ partials, unsigned* __restrict__ arrivals) {
  using Op = mma_sync::Mma<T>;
  constexpr int THREADS = WARPS * 32;
  constexpr int VEC = 16 / sizeof(T);  // elements of one lane's 16-byte piece
  constexpr int SEG = 4 * VEC;         // k elements four lanes (t = 0..3) cover together
  constexpr int STEP = SEG * UNROLL;   // k elements per pass of the main loop
  constexpr int I_PAD = 8 * N_TILES;   // rows of X the mma sees (zero past the real ones)
  constexpr int BLOCK_J = WARPS * ROW_TILES * 16;
  static_assert(N_TILES == 1 || N_TILES == 2, "N_TILES: 1 or 2 (X has at most 16 rows)");

  // X is A (small M) or B^T (small N); Y the other, always K-contiguous: Y[j][k] = Y[j*K + k].
  const int I = SMALL_N ? N : M, J = SMALL_N ? M : N;
  const T* const Y = SMALL_N ? A : B;

  // This block's slice of K: whole 16-byte pieces, so a piece is wholly inside or outside it.
  const int kc = ((K + SPLIT_K - 1) / SPLIT_K + VEC - 1) / VEC * VEC;
  const int k_begin = blockIdx.y * kc;
  const int k_len = max(0, min(K - k_begin, kc));
  const int kc_pad = (kc + STEP - 1) / STEP * STEP;  // what the main loop reads of X's rows
  constexpr int ROW_PAD = VEC;                        // rows 16 bytes apart mod 128: no conflicts
  const int stride = kc_pad + ROW_PAD;

  // The slice of X in shared memory, [I_PAD][stride], zero past I and past the slice. The source
  // index runs along X's contiguous direction, so the global reads coalesce either way.
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const xs = reinterpret_cast<T*>(smem_raw);
  // X[i][k] is contiguous in k when it is a row-major A, or the transpose of a column-major B.
  constexpr bool X_K_CONTIGUOUS = SMALL_N ? !B_ROW_MAJOR : A_ROW_MAJOR;
  const T* const X = SMALL_N ? B : A;
  const T zero = Op::convert(0.f);
  for (int idx = threadIdx.x; idx < I_PAD * stride; idx += THREADS) {
    int i, k;
    if (X_K_CONTIGUOUS) i = idx / stride, k = idx % stride;
    else k = idx / I_PAD, i = idx % I_PAD;
    T x = zero;
    if (i < I && k < k_len)
      x = X_K_CONTIGUOUS ? X[(long long)i * K + k_begin + k] : X[(long long)(k_begin + k) * I + i];
    xs[i * stride + k] = x;
  }
  __syncthreads();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int j_warp = blockIdx.x * BLOCK_J + warp * ROW_TILES * 16;

  float acc[ROW_TILES][N_TILES][4];
#pragma unroll
  for (int r = 0; r < ROW_TILES; ++r)
#pragma unroll
    for (int n = 0; n < N_TILES; ++n)
#pragma unroll
      for (int c = 0; c < 4; ++c) acc[r][n][c] = 0.f;

  // Lane (g, t) reads rows g and g + 8 of each of its row tiles, 16 bytes at k offset t*VEC of
  // every segment; rows past J read nothing (their outputs are never stored).
  const T* y_row[ROW_TILES][2];
  bool row_ok[ROW_TILES][2];
#pragma unroll
  for (int r = 0; r < ROW_TILES; ++r)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = j_warp + r * 16 + h * 8 + g;
      row_ok[r][h] = j < J;
      y_row[r][h] = Y + (long long)min(j, J - 1) * K + k_begin + t * VEC;
    }
  const T* x_row = xs + g * stride + t * VEC;

  for (int kk = 0; kk < k_len; kk += STEP) {
    uint4 y[ROW_TILES][2][UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const bool k_ok = kk + u * SEG + t * VEC < k_len;
#pragma unroll
      for (int r = 0; r < ROW_TILES; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          y[r][h][u] = load_stream16(y_row[r][h] + kk + u * SEG, row_ok[r][h] && k_ok);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      uint4 x[N_TILES];
#pragma unroll
      for (int n = 0; n < N_TILES; ++n)
        x[n] = *reinterpret_cast<const uint4*>(x_row + n * 8 * stride + kk + u * SEG);
#pragma unroll
      for (int r = 0; r < ROW_TILES; ++r)
#pragma unroll
        for (int n = 0; n < N_TILES; ++n) {
          // Words 0-1 of each piece are one mma's k slots, words 2-3 the next one's.
          const uint4 lo = y[r][0][u], hi = y[r][1][u];
          const unsigned a0[4] = {Op::operand(lo.x), Op::operand(hi.x), Op::operand(lo.y), Op::operand(hi.y)};
          const unsigned b0[2] = {Op::operand(x[n].x), Op::operand(x[n].y)};
          Op::run(acc[r][n], a0, b0);
          const unsigned a1[4] = {Op::operand(lo.z), Op::operand(hi.z), Op::operand(lo.w), Op::operand(hi.w)};
          const unsigned b1[2] = {Op::operand(x[n].z), Op::operand(x[n].w)};
          Op::run(acc[r][n], a1, b1);
        }
    }
  }

  // Accumulator c of tile (r, n) is row j_warp + r*16 + g (+8 for c >= 2), column n*8 + 2t (+1
  // for odd c); each_output hands every one to `fn` with its row j and column i.
  auto each_output = [&](auto&& fn) {
#pragma unroll
    for (int r = 0; r < ROW_TILES; ++r)
#pragma unroll
      for (int n = 0; n < N_TILES; ++n)
#pragma unroll
        for (int c = 0; c < 4; ++c)
          fn(j_warp + r * 16 + g + (c >= 2 ? 8 : 0), n * 8 + 2 * t + (c & 1), acc[r][n][c]);
  };
  auto out_index = [&](int j, int i) -> long long {
    return SMALL_N ? (long long)j * N + i : (long long)i * N + j;
  };
  if (SPLIT_K == 1) {
    each_output([&](int j, int i, float v) {
      if (j < J && i < I) C[out_index(j, i)] = Op::convert(v);
    });
    return;
  }

  // Split-K: partials[split][j][i] (I_PAD columns); splitk.cuh adds the splits up.
  each_output([&](int j, int i, float v) {
    if (j < J) partials[((long long)blockIdx.y * J + j) * I_PAD + i] = v;
  });
  const int j0 = blockIdx.x * BLOCK_J;
  splitk::reduce_splits<THREADS, BLOCK_J * I_PAD>(
      partials, (long long)J * I_PAD, SPLIT_K, blockIdx.y,
      arrivals + blockIdx.x * splitk::counters_per_tile(SPLIT_K),
      [&](int idx, long long& off) {
        const int j = j0 + idx / I_PAD, i = idx % I_PAD;
        off = (long long)j * I_PAD + i;
        return j < J && i < I;
      },
      [&](int idx, float s) { C[out_index(j0 + idx / I_PAD, idx % I_PAD)] = Op::convert(s); });
}
