// layernorm_backward.cu — LayerNorm's backward pass over a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16), math in fp32. With xhat = (x - mean) * rstd and g = w * dy:
//
//   dx = (g - (xhat * mean(g * xhat) + mean(g))) * rstd     (the means over the row)
//   dw = sum over rows of dy * xhat,   db = sum over rows of dy
//
//   ktune_layernorm_bwd<T, COLS, VEC_BYTES, ROW_THREADS, PREFETCH>
//     A persistent grid of blocks of ROW_THREADS threads, each block taking rows blockIdx.x,
//     blockIdx.x + gridDim.x, ... (PREFETCH 1: the next row's loads issued before this row's
//     reduction, so they overlap it; the two row sums in one exchange): a thread owns the same columns in every row, so it keeps w in
//     registers and its partial dw and db in its own slots of shared memory across rows (stage 1
//     of the weight gradients' reduction, over the block's rows). Stage 2 adds each block's partials into the fp32 workspace `acc`
//     (2 * cols floats) with atomics; the last block to arrive (counted in `arrivals`) rounds
//     them into dw and db and zeroes the workspace and the counter for the next launch.
//     Launch: grid min(rows, blocks), block ROW_THREADS, dynamic shared memory
//     8 * PER * V * ROW_THREADS bytes (PER vectors of V elements a thread).
//
// Arguments: const T* x, const T* w, const T* dy, const float* mean, const float* rstd, T* dx,
// T* dw, T* db, float* acc, unsigned* arrivals, long long rows, int cols.
// (cols * sizeof(T)) % VEC_BYTES == 0, so every row starts aligned for vector loads.
#include "elementwise.cuh"
#include "row_reduce.cuh"

template <typename T, int COLS, int VEC_BYTES, int ROW_THREADS, int PREFETCH = 0>
__global__ void __launch_bounds__(ROW_THREADS)
    ktune_layernorm_bwd(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ dy,
                        const float* __restrict__ mean, const float* __restrict__ rstd, T* __restrict__ dx,
                        T* __restrict__ dw, T* __restrict__ db, float* __restrict__ acc,
                        unsigned* __restrict__ arrivals, long long rows, int cols) {
  using namespace elementwise;
  using namespace row_reduce;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int PER = (VECS + ROW_THREADS - 1) / ROW_THREADS;
  static_assert(COLS % V == 0, "rows are whole vectors");
  __shared__ float2 scratch[1][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];
  const auto held = [](int k) { return VECS % ROW_THREADS == 0 || threadIdx.x + k * ROW_THREADS < VECS; };

  // Registers are what bounds the row length: x, dy and w stay packed in their storage type
  // between uses (unpacked again for dx), and the dW/dB partials live in shared memory, laid out
  // [k][j][thread] so that a warp's accesses fall in distinct banks.
  extern __shared__ float partials[];  // 2 * PER * V * ROW_THREADS floats: dw's, then db's
  float* dw_part = partials;
  float* db_part = partials + PER * V * ROW_THREADS;
  const auto at = [](int k, int j) { return (k * V + j) * ROW_THREADS + threadIdx.x; };
  R w_raw[PER];
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    w_raw[k] = held(k) ? reinterpret_cast<const R*>(w)[threadIdx.x + k * ROW_THREADS] : R{};
#pragma unroll
    for (int j = 0; j < V; ++j) dw_part[at(k, j)] = db_part[at(k, j)] = 0;
  }

  // A row's x, dy and statistics; with PREFETCH the next row's are in flight while this one is
  // reduced and written, so a block's rows overlap instead of queueing behind each other's loads.
  const auto load_row = [&](long long row, R (&x_raw)[PER], R (&dy_raw)[PER], float& mu, float& rs) {
    const R* x_row = reinterpret_cast<const R*>(x + row * COLS);
    const R* dy_row = reinterpret_cast<const R*>(dy + row * COLS);
    mu = mean[row];
    rs = rstd[row];
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      x_raw[k] = held(k) ? x_row[threadIdx.x + k * ROW_THREADS] : R{};  // zero bits: 0 in every dtype
      dy_raw[k] = held(k) ? dy_row[threadIdx.x + k * ROW_THREADS] : R{};
    }
  };
  R x_raw[PER], dy_raw[PER], x_next[PER], dy_next[PER];
  float mu = 0, rs = 0, mu_next = 0, rs_next = 0;
  if (blockIdx.x < rows) load_row(blockIdx.x, x_raw, dy_raw, mu, rs);
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long next = row + gridDim.x;
    if (PREFETCH && next < rows) load_row(next, x_next, dy_next, mu_next, rs_next);
    float sum_gx = 0, sum_g = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      float xv[V], dyv[V], wv[V];
      unpack<T, V>(x_raw[k], xv);
      unpack<T, V>(dy_raw[k], dyv);
      unpack<T, V>(w_raw[k], wv);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const float xhat = (xv[j] - mu) * rs, g = wv[j] * dyv[j];  // g is 0 past the row
        sum_gx += g * xhat;
        sum_g += g;
        dw_part[at(k, j)] += dyv[j] * xhat;  // dy is 0 past the row
        db_part[at(k, j)] += dyv[j];
      }
    }
    const float2 sums = group_sum_pair<ROW_THREADS, 1>(make_float2(sum_gx, sum_g), scratch);
    const float c1 = sums.x / COLS, c2 = sums.y / COLS;
    R* dx_row = reinterpret_cast<R*>(dx + row * COLS);
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (!held(k)) continue;
      float xv[V], dyv[V], wv[V], out[V];
      unpack<T, V>(x_raw[k], xv);
      unpack<T, V>(dy_raw[k], dyv);
      unpack<T, V>(w_raw[k], wv);
#pragma unroll
      for (int j = 0; j < V; ++j) out[j] = (wv[j] * dyv[j] - ((xv[j] - mu) * rs * c1 + c2)) * rs;
      dx_row[threadIdx.x + k * ROW_THREADS] = pack<T, V, R>(out);
    }
    if (!PREFETCH) {
      if (next < rows) load_row(next, x_raw, dy_raw, mu, rs);
    } else {
#pragma unroll
      for (int k = 0; k < PER; ++k) x_raw[k] = x_next[k], dy_raw[k] = dy_next[k];
      mu = mu_next, rs = rs_next;
    }
  }

  // Stage 2: every block's partials into the workspace; the last block to arrive finishes.
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (!held(k)) continue;
    const int first = (threadIdx.x + k * ROW_THREADS) * V;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      atomicAdd(&acc[first + j], dw_part[at(k, j)]);
      atomicAdd(&acc[COLS + first + j], db_part[at(k, j)]);
    }
  }
  __threadfence();  // this block's additions are visible before its arrival is counted
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();  // and every other block's before the last one reads them
  for (int c = threadIdx.x; c < COLS; c += ROW_THREADS) {
    volatile float* sums = acc;
    dw[c] = from_float<T>(sums[c]);
    db[c] = from_float<T>(sums[COLS + c]);
    acc[c] = 0;
    acc[COLS + c] = 0;
  }
  if (threadIdx.x == 0) *arrivals = 0;
}
