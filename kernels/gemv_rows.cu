// gemv_rows.cu — GEMM with at most 8 rows or at most 8 columns whose large operand is
// K-contiguous, for any sm_80+ GPU: a warp per row of the large operand, CUDA-core fp32 FMAs.
//
// The problems are gemv_dot.cu's, read the same way. Call the operand with <= 4 rows along the
// small dimension X and the other one Y:
//   SMALL_N = 1:  N <= 8, A row-major.     X = B^T (N×K), Y = A   (M×K), C[j][i] = C[j*N + i]
//   SMALL_N = 0:  M <= 8, B column-major.  X = A   (M×K), Y = B^T (N×K), C[i][j] = C[i*N + j]
// Every output is the dot product of a row of Y with a row of X, and reading Y once is the time.
//
// Why a second kernel for them: gemv_dot's mma.sync takes 16 rows of Y a warp, so a 4096-row Y
// is 256 warps, two an SM, too few to keep DRAM busy; it splits K for more, and each split block
// then pays a few latencies that stream nothing (its partials, the arrival, the last block's
// sums). ncu on the H100 at 4096x1x4096 fp16: gemv_dot 22.6 µs at 47% of DRAM bandwidth.
// Here a warp takes ROWS rows, so the same Y is 4096 / ROWS warps, all of them resident at once,
// each with ROWS * UNROLL 16-byte loads in flight a lane, and no split. At up to 8 columns the
// FMAs (8 per element of Y) stay under the time the element takes to arrive; at 8 the rows of X
// a piece of Y needs (128 bytes from L1) are shared by two or more rows a warp.
//
// Each lane reads 16-byte pieces of its rows at k = (32 * u + lane) * VEC of each pass of
// 32 * VEC * UNROLL elements, the same k of every row of X (from L1: every warp reads the same
// X), adds the products into ROWS x I_MAX fp32 sums, and the warp adds its lanes' sums with
// shuffles at the end. Rows of Y are K elements apart and (K * sizeof(T)) % 16 == 0, so every
// piece is whole and aligned. X is read as 16-byte pieces when its rows are K-contiguous (X's
// rows K elements apart), element by element otherwise (X[k][i] = X[k * I + i]).
//
// Launch: grid cdiv(J, WARPS * ROWS) blocks of WARPS * 32 threads, no shared memory.
// Arguments as every gemm kernel's: A, B, C, M, N, K, then scale_a, scale_b, partials, arrivals
// (unused here).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "elementwise.cuh"
#include "stream_load.cuh"

template <typename T, int A_ROW_MAJOR, int B_ROW_MAJOR, int SMALL_N, int I_MAX, int WARPS, int ROWS, int UNROLL>
__global__ void __launch_bounds__(WARPS * 32)
ktune_gemv_rows(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N, int K,
                const float* /*scale_a*/, const float* /*scale_b*/, float* /*partials*/,
                unsigned* /*arrivals*/) {
  using namespace elementwise;
  constexpr int VEC = 16 / sizeof(T);
  constexpr int STEP = 32 * VEC * UNROLL;  // k elements a warp covers per pass
  static_assert(I_MAX >= 1 && I_MAX <= 8, "I_MAX: 1 to 8 rows of X");
  constexpr bool X_K_CONTIGUOUS = SMALL_N ? !B_ROW_MAJOR : A_ROW_MAJOR;

  const int I = SMALL_N ? N : M, J = SMALL_N ? M : N;
  const T* const Y = SMALL_N ? A : B;
  const T* const X = SMALL_N ? B : A;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int j0 = (blockIdx.x * WARPS + warp) * ROWS;
  if (j0 >= J) return;  // no barriers below

  const T* y_row[ROWS];
  bool row_ok[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    row_ok[r] = j0 + r < J;
    y_row[r] = Y + static_cast<long long>(min(j0 + r, J - 1)) * K;
  }
  float acc[ROWS][I_MAX];
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int i = 0; i < I_MAX; ++i) acc[r][i] = 0.f;

  for (int k0 = lane * VEC; k0 < K; k0 += STEP) {
    // Every load of the pass first: ROWS * UNROLL pieces in flight.
    uint4 y[ROWS][UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int k = k0 + u * 32 * VEC;
#pragma unroll
      for (int r = 0; r < ROWS; ++r) y[r][u] = load_stream16(y_row[r] + k, row_ok[r] && k < K);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      const int k = k0 + u * 32 * VEC;
      float x[I_MAX][VEC];
#pragma unroll
      for (int i = 0; i < I_MAX; ++i) {
        const bool ok = i < I && k < K;
        if constexpr (X_K_CONTIGUOUS) {
          uint4 raw = make_uint4(0, 0, 0, 0);
          if (ok) raw = __ldg(reinterpret_cast<const uint4*>(X + static_cast<long long>(i) * K + k));
          unpack<T, VEC>(raw, x[i]);
        } else {
#pragma unroll
          for (int v = 0; v < VEC; ++v)
            x[i][v] = ok ? to_float(X[static_cast<long long>(k + v) * I + i]) : 0.f;
        }
      }
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        float yv[VEC];
        unpack<T, VEC>(y[r][u], yv);
#pragma unroll
        for (int i = 0; i < I_MAX; ++i)
#pragma unroll
          for (int v = 0; v < VEC; ++v) acc[r][i] = fmaf(yv[v], x[i][v], acc[r][i]);
      }
    }
  }

#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int i = 0; i < I_MAX; ++i) {
      float s = acc[r][i];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset);
      acc[r][i] = s;
    }
  if (lane != 0) return;
#pragma unroll
  for (int r = 0; r < ROWS; ++r)
#pragma unroll
    for (int i = 0; i < I_MAX; ++i) {
      const int j = j0 + r;
      if (!row_ok[r] || i >= I) continue;
      C[SMALL_N ? static_cast<long long>(j) * N + i : static_cast<long long>(i) * N + j] = from_float<T>(acc[r][i]);
    }
}
