// norm.cu — LayerNorm and RMSNorm forward over each row of a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16), math in fp32:
//
//   LayerNorm (RMS = 0): mean = sum(x) / cols, var = sum((x - mean)^2) / cols (biased),
//                        rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * w + b
//   RMSNorm   (RMS = 1): rstd = 1 / sqrt(sum(x^2) / cols + eps), y = x * rstd * w
//
// Both write the per-row statistics in fp32 (mean: LayerNorm only), as the training frameworks
// keep them for the backward pass. Two kernels:
//
//   ktune_norm_rows<T, COLS, VEC_BYTES, ROW_THREADS, ROWS_PER_BLOCK, RMS, PRELOAD, STREAMING>
//     One pass over memory: a row lives in the registers of ROW_THREADS threads, so the variance
//     is the exact two-pass sum over the held values. ROWS_PER_BLOCK rows per block. PRELOAD 1
//     holds the thread's w (and b) in registers too, loaded with x. STREAMING 1 reads x and
//     writes y with the evict-first hint (ld.global.cs / st.global.cs).
//     Launch: grid cdiv(rows, ROWS_PER_BLOCK), block ROW_THREADS * ROWS_PER_BLOCK.
//
//   ktune_norm_looped<T, VEC_BYTES, BLOCK, RMS>
//     Any row length: one block per row; a first pass sums x - x[0] and its square (shifted by
//     the row's first element, so the variance does not cancel away for rows far from zero), a
//     second reads the row again (mostly from L2) and writes it.
//     Launch: grid rows, block BLOCK.
//
//   ktune_norm_cluster<T, COLS, VEC_BYTES, BLOCK, CLUSTER, RMS, PRELOAD>   (sm_90+)
//     A row split over a thread-block cluster, each block's slice in registers, the partial sums
//     traded through distributed shared memory: one pass over memory with the exact two-pass
//     variance, as the register kernel, for few long rows (8 rows of 65536 columns keep 8 of 132
//     SMs busy one block a row; in clusters of 16, 128). Launch: grid rows * CLUSTER, block BLOCK.
//
// Arguments (all): const T* x, const T* w, const T* b, T* y, float* mean, float* rstd,
// long long rows, int cols, float eps. RMSNorm's b and mean are null. Rows are cols elements
// apart and (cols * sizeof(T)) % VEC_BYTES == 0, so every row starts aligned for vector loads.
#include "elementwise.cuh"
#include "row_reduce.cuh"

namespace norm_detail {

using namespace elementwise;
using namespace row_reduce;

// y for one vector of x: w and b are read here, per row, from L2 (they are shared by every row).
template <typename T, int V, int RMS, typename R>
__device__ __forceinline__ R normalize(const float* v, R w_raw, const R* b_raw, float mean, float rstd) {
  float w[V], out[V];
  unpack<T, V>(w_raw, w);
  if constexpr (RMS) {
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = v[j] * rstd * w[j];
  } else {
    float b[V];
    unpack<T, V>(*b_raw, b);
#pragma unroll
    for (int j = 0; j < V; ++j) out[j] = (v[j] - mean) * rstd * w[j] + b[j];
  }
  return pack<T, V, R>(out);
}

}  // namespace norm_detail

template <typename T, int COLS, int VEC_BYTES, int ROW_THREADS, int ROWS_PER_BLOCK, int RMS, int PRELOAD,
          int STREAMING = 0>
__global__ void __launch_bounds__(ROW_THREADS * ROWS_PER_BLOCK)
    ktune_norm_rows(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y,
                    float* __restrict__ mean_out, float* __restrict__ rstd_out, long long rows, int cols, float eps) {
  using namespace norm_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;                                // vectors per row
  constexpr int PER = (VECS + ROW_THREADS - 1) / ROW_THREADS;  // vectors per thread
  static_assert(COLS % V == 0, "rows are whole vectors");
  __shared__ float scratch[ROWS_PER_BLOCK][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];

  const int lane = threadIdx.x % ROW_THREADS;
  const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / ROW_THREADS;
  const bool active = row < rows;  // inactive threads still take part in the block's barriers
  const R* in = reinterpret_cast<const R*>(x + (active ? row : 0) * COLS);
  R* out = reinterpret_cast<R*>(y + (active ? row : 0) * COLS);
  const auto held = [&](int k) { return active && (VECS % ROW_THREADS == 0 || lane + k * ROW_THREADS < VECS); };

  float v[PER][V];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (held(k)) {
      unpack<T, V>(load_vec<STREAMING>(in + lane + k * ROW_THREADS), v[k]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] = 0;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) sum += RMS ? v[k][j] * v[k][j] : v[k][j];
  }
  // PRELOAD: w and b fetched now, beside x, rather than after the reductions, where their latency
  // (L2 at best) would be the last step of every row's chain: it tells when the rows are few.
  const R* w_vec = reinterpret_cast<const R*>(w);
  const R* b_vec = reinterpret_cast<const R*>(b);
  R w_held[PRELOAD ? PER : 1], b_held[PRELOAD && !RMS ? PER : 1];
  if constexpr (PRELOAD) {
#pragma unroll
    for (int k = 0; k < PER; ++k)
      if (held(k)) {
        w_held[k] = w_vec[lane + k * ROW_THREADS];
        if constexpr (!RMS) b_held[k] = b_vec[lane + k * ROW_THREADS];
      }
  }
  sum = group_reduce<ROW_THREADS, ROWS_PER_BLOCK>(sum, SumOp{}, scratch);
  float mean = 0, rstd;
  if constexpr (RMS) {
    rstd = rsqrtf(sum / COLS + eps);
  } else {
    mean = sum / COLS;
    float squares = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k)
      if (held(k))
#pragma unroll
        for (int j = 0; j < V; ++j) squares += (v[k][j] - mean) * (v[k][j] - mean);
    squares = group_reduce<ROW_THREADS, ROWS_PER_BLOCK>(squares, SumOp{}, scratch);
    rstd = rsqrtf(squares / COLS + eps);
  }
  if (active && lane == 0) {
    if (!RMS) mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = lane + k * ROW_THREADS;
    if (!held(k)) continue;
    if constexpr (PRELOAD)
      store_vec<STREAMING>(out + i, normalize<T, V, RMS>(v[k], w_held[k], RMS ? nullptr : &b_held[RMS ? 0 : k], mean, rstd));
    else
      store_vec<STREAMING>(out + i, normalize<T, V, RMS>(v[k], w_vec[i], RMS ? nullptr : b_vec + i, mean, rstd));
  }
}

template <typename T, int VEC_BYTES, int BLOCK, int RMS>
__global__ void __launch_bounds__(BLOCK)
    ktune_norm_looped(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y,
                      float* __restrict__ mean_out, float* __restrict__ rstd_out, long long rows, int cols, float eps) {
  using namespace norm_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  const int vecs = cols / V;
  const T* row_x = x + blockIdx.x * (long long)cols;
  const R* in = reinterpret_cast<const R*>(row_x);
  R* out = reinterpret_cast<R*>(y + blockIdx.x * (long long)cols);

  // Pass 1: sums of the shifted values d = x - shift and of d^2 (RMSNorm: of x^2 alone).
  const float shift = RMS ? 0.0f : to_float(row_x[0]);
  float sum = 0, squares = 0;
#pragma unroll 4
  for (int i = threadIdx.x; i < vecs; i += BLOCK) {
    float v[V];
    unpack<T, V>(in[i], v);
#pragma unroll
    for (int j = 0; j < V; ++j) {
      const float d = v[j] - shift;
      sum += d;
      squares += d * d;
    }
  }
  squares = group_reduce<BLOCK, 1>(squares, SumOp{}, scratch);
  float mean = 0, rstd;
  if constexpr (RMS) {
    rstd = rsqrtf(squares / cols + eps);
  } else {
    sum = group_reduce<BLOCK, 1>(sum, SumOp{}, scratch);
    const float shifted_mean = sum / cols;
    mean = shift + shifted_mean;
    rstd = rsqrtf(fmaxf(squares / cols - shifted_mean * shifted_mean, 0.0f) + eps);
  }
  if (threadIdx.x == 0) {
    if (!RMS) mean_out[blockIdx.x] = mean;
    rstd_out[blockIdx.x] = rstd;
  }

  // Pass 2: read again, normalize, write.
  const R* w_vec = reinterpret_cast<const R*>(w);
  const R* b_vec = reinterpret_cast<const R*>(b);
#pragma unroll 4
  for (int i = threadIdx.x; i < vecs; i += BLOCK) {
    float v[V];
    unpack<T, V>(in[i], v);
    out[i] = normalize<T, V, RMS>(v, w_vec[i], RMS ? nullptr : b_vec + i, mean, rstd);
  }
}

// Compiled for sm_90 and newer only: __cluster_dims__ is an error on sm_80, where the two kernels
// above must still build (configs/layernorm_cluster.json says min_arch 90).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

#include "hopper_async.cuh"

template <typename T, int COLS, int VEC_BYTES, int BLOCK, int CLUSTER, int RMS, int PRELOAD>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
    ktune_norm_cluster(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ b, T* __restrict__ y,
                       float* __restrict__ mean_out, float* __restrict__ rstd_out, long long rows, int cols,
                       float eps) {
  using namespace norm_detail;
  using namespace hopper_async;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int SLICE = (VECS + CLUSTER - 1) / CLUSTER;  // vectors per block
  constexpr int PER = (SLICE + BLOCK - 1) / BLOCK;       // vectors per thread
  static_assert(COLS % V == 0, "rows are whole vectors");
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  __shared__ float partial[2];  // this block's sum and sum of squares, read by the whole cluster

  const unsigned rank = cluster_rank();
  const long long row = blockIdx.x / CLUSTER;  // whole clusters per row: every block has a row
  const int first = rank * SLICE;
  const int end = first + SLICE < VECS ? first + SLICE : VECS;
  const R* in = reinterpret_cast<const R*>(x + row * COLS);
  R* out = reinterpret_cast<R*>(y + row * COLS);
  const R* w_vec = reinterpret_cast<const R*>(w);
  const R* b_vec = reinterpret_cast<const R*>(b);
  const auto held = [&](int k) { return first + (int)threadIdx.x + k * BLOCK < end; };

  float v[PER][V];
  R w_held[PRELOAD ? PER : 1], b_held[PRELOAD && !RMS ? PER : 1];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = first + threadIdx.x + k * BLOCK;
    if (held(k)) {
      unpack<T, V>(in[i], v[k]);
      if constexpr (PRELOAD) {
        w_held[k] = w_vec[i];
        if constexpr (!RMS) b_held[k] = b_vec[i];
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] = 0;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) sum += RMS ? v[k][j] * v[k][j] : v[k][j];
  }
  // The cluster's sum, added in rank order in every block, so every block gets the same bits.
  sum = group_reduce<BLOCK, 1>(sum, SumOp{}, scratch);
  if (threadIdx.x == 0) partial[0] = sum;
  cluster_sync();
  sum = 0;
#pragma unroll
  for (int r = 0; r < CLUSTER; ++r) sum += load_from_block(&partial[0], r);
  float mean = 0, rstd;
  if constexpr (RMS) {
    rstd = rsqrtf(sum / COLS + eps);
  } else {
    mean = sum / COLS;
    float squares = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k)
      if (held(k))
#pragma unroll
        for (int j = 0; j < V; ++j) squares += (v[k][j] - mean) * (v[k][j] - mean);
    squares = group_reduce<BLOCK, 1>(squares, SumOp{}, scratch);
    if (threadIdx.x == 0) partial[1] = squares;
    cluster_sync();
    squares = 0;
#pragma unroll
    for (int r = 0; r < CLUSTER; ++r) squares += load_from_block(&partial[1], r);
    rstd = rsqrtf(squares / COLS + eps);
  }
  // No block may exit (and free its shared memory) while another still reads its partials: arrive
  // now, write this block's slice, wait at the end.
  cluster_arrive();
  if (rank == 0 && threadIdx.x == 0) {
    if (!RMS) mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = first + threadIdx.x + k * BLOCK;
    if (!held(k)) continue;
    if constexpr (PRELOAD)
      out[i] = normalize<T, V, RMS>(v[k], w_held[k], RMS ? nullptr : &b_held[RMS ? 0 : k], mean, rstd);
    else
      out[i] = normalize<T, V, RMS>(v[k], w_vec[i], RMS ? nullptr : b_vec + i, mean, rstd);
  }
  cluster_wait();
}

#endif  // sm_90+
