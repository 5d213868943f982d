// layernorm_backward.cu — LayerNorm's backward pass over a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16), math in fp32. With xhat = (x - mean) * rstd and g = w * dy:
//
//   dx = (g - (xhat * mean(g * xhat) + mean(g))) * rstd     (the means over the row)
//   dw = sum over rows of dy * xhat,   db = sum over rows of dy
//
//   ktune_layernorm_bwd<T, COLS, VEC_BYTES, ROW_THREADS, PREFETCH, GROUPS>
//     A persistent grid of blocks of GROUPS groups of ROW_THREADS threads, group g of block b
//     taking rows b * GROUPS + g, then gridDim.x * GROUPS further on, and so on: a thread owns the
//     same columns in every row, so it keeps w in registers and its partial dw and db in its own
//     slots of shared memory across rows (stage 1 of the weight gradients' reduction). PREFETCH 1
//     issues the next row's loads before this row's reduction, so they overlap it; the two row
//     sums go in one exchange. Stage 2 sums the groups' partials in shared memory and adds each
//     block's into the fp32 workspace `acc` (2 * cols floats) with atomics, so several rows in
//     flight per block cost no more atomics; the last block to arrive (counted in `arrivals`)
//     rounds them into dw and db and zeroes the workspace and the counter for the next launch.
//     Launch: grid min(cdiv(rows, GROUPS), blocks), block ROW_THREADS * GROUPS, dynamic shared
//     memory 8 * PER * V * ROW_THREADS * GROUPS bytes (PER vectors of V elements a thread).
//
// Arguments: const T* x, const T* w, const T* dy, const float* mean, const float* rstd, T* dx,
// T* dw, T* db, float* acc, unsigned* arrivals, long long rows, int cols.
// (cols * sizeof(T)) % VEC_BYTES == 0, so every row starts aligned for vector loads.
#include "elementwise.cuh"
#include "row_reduce.cuh"

template <typename T, int COLS, int VEC_BYTES, int ROW_THREADS, int PREFETCH = 0, int GROUPS = 1>
__global__ void __launch_bounds__(ROW_THREADS * GROUPS)
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
  constexpr int THREADS = ROW_THREADS * GROUPS;
  static_assert(COLS % V == 0, "rows are whole vectors");
  __shared__ float2 scratch[GROUPS][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];
  // GROUPS groups of ROW_THREADS threads, each on its own rows; a thread owns the same columns
  // in every row it takes, as the same lane of every group does.
  const int group = threadIdx.x / ROW_THREADS, lane = threadIdx.x % ROW_THREADS;
  const auto held = [&](int k) { return VECS % ROW_THREADS == 0 || lane + k * ROW_THREADS < VECS; };

  // Registers are what bounds the row length: x, dy and w stay packed in their storage type
  // between uses (unpacked again for dx), and the dW/dB partials live in shared memory, laid out
  // [k][j][thread] so that a warp's accesses fall in distinct banks.
  extern __shared__ float partials[];  // 2 * PER * V * THREADS floats: dw's, then db's
  float* dw_part = partials;
  float* db_part = partials + PER * V * THREADS;
  const auto at = [](int k, int j, int thread) { return (k * V + j) * THREADS + thread; };
  R w_raw[PER];
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    w_raw[k] = held(k) ? reinterpret_cast<const R*>(w)[lane + k * ROW_THREADS] : R{};
#pragma unroll
    for (int j = 0; j < V; ++j) dw_part[at(k, j, threadIdx.x)] = db_part[at(k, j, threadIdx.x)] = 0;
  }

  // A row's x, dy and statistics (zeros for a group past the last row: it still takes part in
  // the block's reductions); with PREFETCH the next row's are in flight while this one is
  // reduced and written, so a group's rows overlap instead of queueing behind each other's loads.
  const auto load_row = [&](long long row, R (&x_raw)[PER], R (&dy_raw)[PER], float& mu, float& rs) {
    const bool active = row < rows;
    const R* x_row = reinterpret_cast<const R*>(x + (active ? row : 0) * COLS);
    const R* dy_row = reinterpret_cast<const R*>(dy + (active ? row : 0) * COLS);
    mu = active ? mean[row] : 0.0f;
    rs = active ? rstd[row] : 0.0f;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      x_raw[k] = active && held(k) ? x_row[lane + k * ROW_THREADS] : R{};  // zero bits: 0 in every dtype
      dy_raw[k] = active && held(k) ? dy_row[lane + k * ROW_THREADS] : R{};
    }
  };
  const long long stride = (long long)gridDim.x * GROUPS;
  R x_raw[PER], dy_raw[PER], x_next[PER], dy_next[PER];
  float mu = 0, rs = 0, mu_next = 0, rs_next = 0;
  load_row((long long)blockIdx.x * GROUPS + group, x_raw, dy_raw, mu, rs);
  // Every group goes round as often as the block's first, so the reductions' barriers match.
  for (long long first_row = (long long)blockIdx.x * GROUPS; first_row < rows; first_row += stride) {
    const long long row = first_row + group, next = row + stride;
    if (PREFETCH) load_row(next, x_next, dy_next, mu_next, rs_next);
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
        dw_part[at(k, j, threadIdx.x)] += dyv[j] * xhat;  // dy is 0 past the row
        db_part[at(k, j, threadIdx.x)] += dyv[j];
      }
    }
    const float2 sums = group_sum_pair<ROW_THREADS, GROUPS>(make_float2(sum_gx, sum_g), scratch);
    const float c1 = sums.x / COLS, c2 = sums.y / COLS;
    if (row < rows) {
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
        dx_row[lane + k * ROW_THREADS] = pack<T, V, R>(out);
      }
    }
    if (!PREFETCH) {
      load_row(next, x_raw, dy_raw, mu, rs);
    } else {
#pragma unroll
      for (int k = 0; k < PER; ++k) x_raw[k] = x_next[k], dy_raw[k] = dy_next[k];
      mu = mu_next, rs = rs_next;
    }
  }

  // Stage 2: the groups' partials summed in shared memory, then the block's into the workspace;
  // the last block to arrive finishes.
  if constexpr (GROUPS > 1) __syncthreads();
  if (group == 0) {
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (!held(k)) continue;
      const int first = (lane + k * ROW_THREADS) * V;
#pragma unroll
      for (int j = 0; j < V; ++j) {
        float dw_sum = 0, db_sum = 0;
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
          dw_sum += dw_part[at(k, j, lane + g * ROW_THREADS)];
          db_sum += db_part[at(k, j, lane + g * ROW_THREADS)];
        }
        atomicAdd(&acc[first + j], dw_sum);
        atomicAdd(&acc[COLS + first + j], db_sum);
      }
    }
  }
  __threadfence();  // this block's additions are visible before its arrival is counted
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(arrivals, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();  // and every other block's before the last one reads them
  for (int c = threadIdx.x; c < COLS; c += THREADS) {
    volatile float* sums = acc;
    dw[c] = from_float<T>(sums[c]);
    db[c] = from_float<T>(sums[COLS + c]);
    acc[c] = 0;
    acc[COLS + c] = 0;
  }
  if (threadIdx.x == 0) *arrivals = 0;
}
