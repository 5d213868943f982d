// gemv.cu — GEMM with a handful of rows (decode: M <= 16) or a handful of columns (N <= 16), for
// any sm_80+ GPU, on the CUDA cores.
//
// Computes C = A·B (C M×N row-major, rounded to T: __half, __nv_bfloat16 or float) with fp32
// accumulation; fp32 problems take exact fp32 FMAs, not TF32 (the CUDA cores are not what limits
// a stream). Call the operand with <= 16 rows along the small dimension X and the other one Y;
// Y must be contiguous along the large dimension:
//   SMALL_N = 0:  M <= 16, B row-major (K×N):     X = A,   Y = B,   C[i][j] = C[i*N + j]
//   SMALL_N = 1:  N <= 16, A column-major (K×M):  X = B^T, Y = A^T, C[j][i] = C[j*N + i]
// (i indexes the small dimension I, j the large one J; Y's rows are its K rows of J elements.)
// X may be stored either way (A_ROW_MAJOR / B_ROW_MAJOR). With I this small every element of Y is
// used I times: the kernel is a stream over Y, and the tensor cores (which want 16 or 64 rows)
// would sit mostly idle. What matters is keeping enough of Y in flight to fill the memory system;
// that is what the tunables trade. (Layouts whose large operand is K-contiguous instead are
// gemv_dot.cu's.)
//
// Launch: grid (cdiv(J, BLOCK_N), SPLIT_K), NUM_WARPS*32 threads, SMEM_BYTES of dynamic shared
// memory as configs/gemm_gemv.json computes it. J * sizeof(T) must be a multiple of 16 (16-byte
// rows of Y).
//
// Tunables:
//   M_TILE     rows of X per block, >= I (1, 2, 4, 8, 16): accumulators per thread are M_TILE ×
//              16/sizeof(T).
//   BLOCK_N    columns of Y per block; BLOCK_N / (16/sizeof(T)) threads share one k row of Y, each reading 16
//              bytes, so a warp reads whole 128-byte lines.
//   NUM_WARPS  4 or 8.
//   UNROLL     consecutive k rows per thread per pass (4 or 8): the 16-byte loads one thread has
//              in flight at once.
//   SPLIT_K    blocks along K. Each writes fp32 partial sums to a workspace; splitk.cuh adds
//              them in a fixed order (in groups of 8, the last block of each group to arrive,
//              then the last group's) — the same sum whatever the arrival order — writes C and
//              leaves the counters zero for the next launch. Small J needs it to occupy every SM.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "elementwise.cuh"
#include "splitk.cuh"
#include "stream_load.cuh"

// The registers a thread needs: its UNROLL 16-byte loads in flight, its M_TILE x VEC accumulators
// and about 24 for addresses and indices. Promised only with few accumulators: more keep the
// registers up by themselves (M_TILE 8: about 190), and there this count falls short and would
// make ptxas spill. It is short already for some: BLOCK_N 512 on 4 warps at M_TILE 2, or fp32 at
// M_TILE 4, spill and are ruled out (fp32 at M = 3 keeps 48 of the 65 candidates it had); the
// split-K sums' own registers (8 outputs a thread there) are not in it.
template <typename T, int M_TILE, int NUM_WARPS, int UNROLL>
constexpr int gemv_blocks_per_sm() {
  constexpr int accumulators = M_TILE * (16 / (int)sizeof(T));
  return accumulators > 16 ? 0 : stream_blocks_per_sm(NUM_WARPS * 32, UNROLL * 4 + accumulators + 24);
}

template <typename T, int A_ROW_MAJOR, int B_ROW_MAJOR, int SMALL_N, int M_TILE, int BLOCK_N, int NUM_WARPS,
          int UNROLL, int SPLIT_K>
__global__ void __launch_bounds__(NUM_WARPS * 32, (gemv_blocks_per_sm<T, M_TILE, NUM_WARPS, UNROLL>()))
ktune_gemv(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, int M, int N, int K,
           const float* /*scale_a*/, const float* /*scale_b*/, float* __restrict__ partials,
           unsigned* __restrict__ arrivals) {
  using namespace elementwise;  // to_float, from_float, unpack(_pair): the stored type and fp32
  constexpr int THREADS = NUM_WARPS * 32;
  constexpr int VEC = 16 / sizeof(T);    // elements of Y per 16-byte load
  constexpr int TPR = BLOCK_N / VEC;     // threads across one k row of the tile
  constexpr int ROWS = THREADS / TPR;    // threads along K
  constexpr int PASS = ROWS * UNROLL;    // k rows per pass of the block
  static_assert(THREADS % TPR == 0 && TPR >= 8, "BLOCK_N / VEC threads must divide the block");
  static_assert(UNROLL % 4 == 0, "UNROLL: a multiple of 4 (float4 reads of A)");
  static_assert(M_TILE >= 1 && M_TILE <= 16, "M_TILE: 1..16");

  const int I = SMALL_N ? N : M, J = SMALL_N ? M : N;
  const T* const X = SMALL_N ? B : A;
  const T* const Y = SMALL_N ? A : B;
  // X[i][k] is contiguous in k for a row-major A or a column-major B (whose transpose X is).
  constexpr bool X_K_CONTIGUOUS = SMALL_N ? !B_ROW_MAJOR : A_ROW_MAJOR;

  // This block's slice of K: a whole number of passes, so every X read below is in range.
  const int kc = ((K + SPLIT_K - 1) / SPLIT_K + PASS - 1) / PASS * PASS;
  const int k_begin = blockIdx.y * kc;
  const int k_len = max(0, min(K - k_begin, kc));

  // The slice of X, as fp32, zero past K and past I: [M_TILE][kc].
  extern __shared__ __align__(16) float smem[];
  float* const a_s = smem;
  for (int idx = threadIdx.x; idx < M_TILE * kc; idx += THREADS) {
    const int m = idx / kc, k = idx % kc;
    float a = 0.f;
    if (m < I && k < k_len)
      a = to_float(X[X_K_CONTIGUOUS ? (long long)m * K + k_begin + k : (long long)(k_begin + k) * I + m]);
    a_s[idx] = a;
  }
  __syncthreads();

  const int col = threadIdx.x % TPR, row = threadIdx.x / TPR;
  const int n = blockIdx.x * BLOCK_N + col * VEC;
  const bool col_ok = n < J;  // J % VEC == 0: a 16-byte piece is wholly inside or outside
  float acc[M_TILE][VEC];
#pragma unroll
  for (int m = 0; m < M_TILE; ++m)
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[m][j] = 0.f;

  // Thread (row, col) takes k rows row*UNROLL .. row*UNROLL + UNROLL-1 of every pass.
  const T* b = Y + (long long)(k_begin + row * UNROLL) * J + n;
  for (int k = row * UNROLL; k < k_len; k += PASS, b += (long long)PASS * J) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = load_stream16(b + (long long)u * J, col_ok && k + u < k_len);
#pragma unroll
    for (int m = 0; m < M_TILE; ++m) {
      float a[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; u += 4) {
        const float4 q = *reinterpret_cast<const float4*>(a_s + m * kc + k + u);
        a[u] = q.x, a[u + 1] = q.y, a[u + 2] = q.z, a[u + 3] = q.w;
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        float y[VEC];
        if constexpr (sizeof(T) == 2) {  // pairs: one conversion instruction per word
          const unsigned w[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
#pragma unroll
          for (int p = 0; p < 4; ++p) {
            const float2 f = unpack_pair<T>(w[p]);
            y[2 * p] = f.x, y[2 * p + 1] = f.y;
          }
        } else {
          unpack<T, VEC>(v[u], y);
        }
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[m][j] = fmaf(a[u], y[j], acc[m][j]);
      }
    }
  }

  // Sum the ROWS partial results of each column: [ROWS][M_TILE][BLOCK_N] in shared memory.
  __syncthreads();  // every thread is done with the slice of A
  float* const red = smem;
#pragma unroll
  for (int m = 0; m < M_TILE; ++m)
#pragma unroll
    for (int j = 0; j < VEC; j += 4)
      *reinterpret_cast<float4*>(red + (row * M_TILE + m) * BLOCK_N + col * VEC + j) =
          make_float4(acc[m][j], acc[m][j + 1], acc[m][j + 2], acc[m][j + 3]);
  __syncthreads();

  const int n0 = blockIdx.x * BLOCK_N;
  // Output (i, j) of the small and large dimensions.
  auto out_index = [&](int m, int nn) -> long long {
    return SMALL_N ? (long long)nn * N + m : (long long)m * N + nn;
  };
  if (SPLIT_K == 1) {
    for (int i = threadIdx.x; i < M_TILE * BLOCK_N; i += THREADS) {
      const int m = i / BLOCK_N, nn = i % BLOCK_N;
      float s = 0.f;
#pragma unroll
      for (int r = 0; r < ROWS; ++r) s += red[r * M_TILE * BLOCK_N + i];
      if (m < I && n0 + nn < J) C[out_index(m, n0 + nn)] = from_float<T>(s);
    }
    return;
  }

  // Split-K: this block's sums go to partials[split][m][n]; splitk.cuh adds the splits up.
  for (int i = threadIdx.x; i < M_TILE * BLOCK_N; i += THREADS) {
    const int m = i / BLOCK_N, nn = i % BLOCK_N;
    float s = 0.f;
#pragma unroll
    for (int r = 0; r < ROWS; ++r) s += red[r * M_TILE * BLOCK_N + i];
    if (m < I && n0 + nn < J) partials[((long long)blockIdx.y * I + m) * J + n0 + nn] = s;
  }
  splitk::reduce_splits<THREADS, M_TILE * BLOCK_N>(
      partials, (long long)I * J, SPLIT_K, blockIdx.y, arrivals + blockIdx.x * splitk::counters_per_tile(SPLIT_K),
      [&](int i, long long& off) {
        const int m = i / BLOCK_N, nn = i % BLOCK_N;
        off = (long long)m * J + n0 + nn;
        return m < I && n0 + nn < J;
      },
      [&](int i, float s) { C[out_index(i / BLOCK_N, n0 + i % BLOCK_N)] = from_float<T>(s); });
}
