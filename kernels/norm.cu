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
//   ktune_norm_cluster<T, COLS, VEC_BYTES, BLOCK, CLUSTER, RMS, PRELOAD, ONE_ROUND>   (sm_90+)
//     A row split over a thread-block cluster, each block's slice in registers, the partial sums
//     pushed into every block's shared memory (cluster_exchange.cuh: st.async onto each block's
//     mbarrier, no cluster barrier between): one pass over memory with the exact two-pass
//     variance (ONE_ROUND 1: the looped kernel's shifted sums, one exchange), for few long rows (8 rows of 65536 columns keep 8 of 132
//     SMs busy one block a row; in clusters of 16, 128). Launch: grid rows * CLUSTER, block BLOCK.
//
// Arguments (all): const T* x, const T* w, const T* b, T* y, float* mean, float* rstd,
// long long rows, int cols, float eps. RMSNorm's b and mean are null. Rows are cols elements
// apart. The looped kernel takes (cols * sizeof(T)) % VEC_BYTES == 0, so every row starts aligned
// for vector loads; the register and cluster kernels take any length, a row's elements off the
// vector boundaries one at a time (elementwise.cuh's ShiftedRow; w and b then from vectors shifted
// into place, or element by element: param_vec).
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

// One loose element (ShiftedRow): y for x at column `col`.
template <typename T, int RMS>
__device__ __forceinline__ T normalize_one(float v, const T* w, const T* b, int col, float mean, float rstd) {
  if constexpr (RMS) return from_float<T>(v * rstd * to_float(w[col]));
  else return from_float<T>((v - mean) * rstd * to_float(w[col]) + to_float(b[col]));
}

// A row's offset from a vector boundary (elements), as a type: code that depends on it is
// compiled once per offset (with_row_offset), so the shifts below take constant amounts.
template <int N> struct RowOffset { static constexpr int value = N; };

// Calls f(RowOffset<off>{}) for off < N; N = 1 calls f(RowOffset<0>{}) whatever off is. The
// threads of a row share off; a warp holding several rows (groups of 8 or 16 threads) runs the
// branches of its rows' offsets one after another.
template <int N, typename F>
__device__ __forceinline__ void with_row_offset(int off, F&& f) {
  if constexpr (N <= 1) {
    f(RowOffset<0>{});
  } else {
    if (off == N - 1) f(RowOffset<N - 1>{});
    else with_row_offset<N - 1>(off, f);
  }
}

// How many offsets a kernel compiles its parameter loads for: a shifted row of 16-byte vectors
// (eight 16-bit elements, or four fp32) takes its w and b vectors from the two aligned vectors each
// straddles (param_vec), shifted by the row's offset, known at compile time; otherwise one path.
template <typename T, int V, int COLS>
__host__ __device__ constexpr int param_offsets() {
  return COLS % V != 0 && V * sizeof(T) == 16 ? V : 1;
}

// w's (or b's) elements for vector i of a row's whole vectors, which start at column `head`, with
// OFF = head % V where param_offsets() > 1: a vector load for every vector of an unshifted row and
// of a shifted row that happens to start on a boundary (OFF 0). Off a boundary, such a vector
// comes from the two aligned vectors it straddles, shifted into place: two loads instead of eight
// made LayerNorm at 4096 x 5001 with 16-byte vectors 0.0372 -> 0.0327 ms on an H200
// (results/h200/norms-s24). The shift is by a constant (a funnel shift a word, or none for a whole
// word's offset), compiled once per offset, where the run-time shift selected each word among the
// offsets: LayerNorm at 2000 x 12289 fp16 with 16-byte vectors and 256 threads a row went 0.0409
// -> 0.0384 ms by the events and 34.1 -> 30.9 us by ncu (results/h200/norm-offsets-s44); its
// other problems there were level. fp32's four words a vector are selected, not shifted: LayerNorm
// at 4096 x 5001 fp32 went 0.0479 / 0.0477 -> 0.0469 / 0.0468 ms (default search, two turns each,
// results/h200/norm-offsets-s45), at the cost of RMSNorm's 1.3-1.6% there (its PRELOAD candidates
// at 128 and 256 threads a row lost). Narrower vectors are loaded an element at a time: for 16-bit
// elements the two loads measured slower, with run-time shifts (8-byte vectors 0.0310 -> 0.0346
// ms) and with constant ones (LayerNorm at 16384 x 2047 bf16 0.0439 / 0.0440 -> 0.0464 / 0.0463
// ms). fp32's 8-byte vectors (two words, selected) too: LayerNorm level, RMSNorm at 16384 x 2047
// fp32 0.0692 / 0.0694 -> 0.0706 / 0.0704 ms (same folder, call 3). The last
// vector of a row, whose second would reach past the end of p, goes element by element too.
template <typename T, int V, typename R, bool SHIFTED, int COLS, int OFF>
__device__ __forceinline__ R param_vec(const T* p, int head, int i) {
  const R* vecs = reinterpret_cast<const R*>(p);
  if constexpr (SHIFTED) {
    const int col = head + i * V;
    R raw;
    if constexpr (param_offsets<T, V, COLS>() > 1) {
      const int base = col / V;
      if constexpr (OFF == 0) {
        return vecs[base];
      } else if ((base + 2) * V <= COLS) {
        constexpr int WORDS = sizeof(R) / 4;
        constexpr int BITS = OFF * static_cast<int>(sizeof(T)) * 8, Q = BITS / 32, S = BITS % 32;
        const R pair[2] = {vecs[base], vecs[base + 1]};
        const unsigned* c = reinterpret_cast<const unsigned*>(pair);
        unsigned out[WORDS];
#pragma unroll
        for (int j = 0; j < WORDS; ++j) out[j] = S ? __funnelshift_r(c[j + Q], c[j + Q + 1], S) : c[j + Q];
        return *reinterpret_cast<const R*>(out);
      }
    }
    T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
    for (int j = 0; j < V; ++j) e[j] = p[col + j];
    return raw;
  } else {
    return vecs[i];
  }
}

// Calls f(k, i, w_raw, b_raw) for each vector k < PER that held(k) says the thread holds, i =
// index(k) its place among the row's whole vectors, with w's vector i and, for LayerNorm, b's
// (RMSNorm's b_raw is w_raw), loaded by param_vec under the row's offset.
template <typename T, int V, typename R, bool SHIFTED, int COLS, int RMS, int PER, typename Held, typename Index,
          typename F>
__device__ __forceinline__ void for_param_vecs(const T* w, const T* b, int head, Held held, Index index, F&& f) {
  with_row_offset<param_offsets<T, V, COLS>()>(head % V, [&](auto off) {
    constexpr int OFF = decltype(off)::value;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (!held(k)) continue;
      const int i = index(k);
      const R w_raw = param_vec<T, V, R, SHIFTED, COLS, OFF>(w, head, i);
      const R b_raw = RMS ? w_raw : param_vec<T, V, R, SHIFTED, COLS, OFF>(b, head, i);
      f(k, i, w_raw, b_raw);
    }
  });
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
  constexpr int VECS = COLS / V;                                // whole vectors per row (at most)
  constexpr int PER = (VECS + ROW_THREADS - 1) / ROW_THREADS;  // vectors per thread
  // Rows that are no whole number of vectors start off vector boundaries: GroupRow's loose
  // elements beside the whole vectors from the row's first aligned one.
  using Part = GroupRow<T, VEC_BYTES, COLS, ROW_THREADS>;
  constexpr bool SHIFTED = Part::SHIFTED;
  constexpr int LOOSE = Part::LOOSE;
  __shared__ float scratch[ROWS_PER_BLOCK][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];

  const int lane = threadIdx.x % ROW_THREADS;
  const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / ROW_THREADS;
  const bool active = row < rows;  // inactive threads still take part in the block's barriers
  const T* row_x = x + (active ? row : 0) * COLS;
  T* row_y = y + (active ? row : 0) * COLS;
  const Part part(row_x, lane, active);
  const int head = part.head;
  const R* in = reinterpret_cast<const R*>(row_x + head);
  R* out = reinterpret_cast<R*>(row_y + head);

  float v[PER][V], lv[LOOSE];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (part.held(k)) {
      unpack<T, V>(load_vec<STREAMING>(in + lane + k * ROW_THREADS), v[k]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] = 0;
    }
#pragma unroll
    for (int j = 0; j < V; ++j) sum += RMS ? v[k][j] * v[k][j] : v[k][j];
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q) {
    lv[q] = part.has_loose(q) ? to_float(row_x[part.loose_col(q)]) : 0.0f;
    sum += RMS ? lv[q] * lv[q] : lv[q];
  }
  // PRELOAD: w and b fetched now, beside x, rather than after the reductions, where their latency
  // (L2 at best) would be the last step of every row's chain: it tells when the rows are few.
  R w_held[PRELOAD ? PER : 1], b_held[PRELOAD && !RMS ? PER : 1];
  const auto held = [&](int k) { return part.held(k); };
  const auto index = [&](int k) { return lane + k * ROW_THREADS; };
  if constexpr (PRELOAD) {
    for_param_vecs<T, V, R, SHIFTED, COLS, RMS, PER>(w, b, head, held, index, [&](int k, int, R w_raw, R b_raw) {
      w_held[k] = w_raw;
      if constexpr (!RMS) b_held[k] = b_raw;
    });
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
      if (part.held(k))
#pragma unroll
        for (int j = 0; j < V; ++j) squares += (v[k][j] - mean) * (v[k][j] - mean);
#pragma unroll
    for (int q = 0; q < LOOSE; ++q)
      if (part.has_loose(q)) squares += (lv[q] - mean) * (lv[q] - mean);
    squares = group_reduce<ROW_THREADS, ROWS_PER_BLOCK>(squares, SumOp{}, scratch);
    rstd = rsqrtf(squares / COLS + eps);
  }
  if (active && lane == 0) {
    if (!RMS) mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  if constexpr (PRELOAD) {
#pragma unroll
    for (int k = 0; k < PER; ++k)
      if (part.held(k))
        store_vec<STREAMING>(out + lane + k * ROW_THREADS,
                             normalize<T, V, RMS>(v[k], w_held[k], RMS ? nullptr : &b_held[RMS ? 0 : k], mean, rstd));
  } else {
    for_param_vecs<T, V, R, SHIFTED, COLS, RMS, PER>(w, b, head, held, index, [&](int k, int i, R w_raw, R b_raw) {
      store_vec<STREAMING>(out + i, normalize<T, V, RMS>(v[k], w_raw, &b_raw, mean, rstd));
    });
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q)
    if (part.has_loose(q)) row_y[part.loose_col(q)] = normalize_one<T, RMS>(lv[q], w, b, part.loose_col(q), mean, rstd);
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

#include "cluster_exchange.cuh"

template <typename T, int COLS, int VEC_BYTES, int BLOCK, int CLUSTER, int RMS, int PRELOAD, int ONE_ROUND = 0>
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
  // Rows that are no whole number of vectors: ShiftedRow's loose elements (fewer than BLOCK) go
  // one to a thread of the cluster's first block, beside the whole vectors.
  constexpr bool SHIFTED = COLS % V != 0;
  static_assert(!SHIFTED || ShiftedRow<T, VEC_BYTES>::MAX_LOOSE <= BLOCK, "a loose element per thread at most");
  // ONE_ROUND (LayerNorm): the sums of d = x - x[0] and of d^2 in one exchange, as the looped
  // kernel does (the shift keeps the variance from cancelling away), instead of the mean's
  // exchange and then the squares': one wait less, for rows of a few microseconds.
  constexpr bool SHIFTED_SUMS = !RMS && ONE_ROUND;
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  // The blocks' sums (value 0) and sums of squares (1, LayerNorm) traded across the cluster.
  __shared__ ClusterExchange<CLUSTER, RMS ? 1 : 2> exchange;
  exchange.init();

  const unsigned rank = cluster_rank();
  const long long row = blockIdx.x / CLUSTER;  // whole clusters per row: every block has a row
  const T* row_x = x + row * COLS;
  T* row_y = y + row * COLS;
  const ClusterSlice<T, VEC_BYTES, COLS, SLICE> slice(row_x, rank);
  const int head = slice.head, first = slice.first, end = slice.end, loose_col = slice.loose_col;
  const R* in = reinterpret_cast<const R*>(row_x + head);
  R* out = reinterpret_cast<R*>(row_y + head);
  const auto held = [&](int k) { return first + (int)threadIdx.x + k * BLOCK < end; };

  float v[PER][V];
  const float lv = SHIFTED && loose_col >= 0 ? to_float(row_x[loose_col]) : 0.0f;
  R w_held[PRELOAD ? PER : 1], b_held[PRELOAD && !RMS ? PER : 1];
  const float shift = SHIFTED_SUMS ? to_float(row_x[0]) : 0.0f;
  float sum = 0, squares = 0;
  // One element into a sum (of x, of x^2 for RMSNorm, of x - x[0]) and, with SHIFTED_SUMS, squares.
  const auto add = [&](float value, float& to_sum, float& to_squares) {
    if constexpr (RMS) {
      to_sum += value * value;
    } else if constexpr (SHIFTED_SUMS) {
      to_sum += value - shift;
      to_squares += (value - shift) * (value - shift);
    } else {
      to_sum += value;
    }
  };
  const auto index = [&](int k) { return first + (int)threadIdx.x + k * BLOCK; };
#pragma unroll
  for (int k = 0; k < PER; ++k)
    if (held(k)) unpack<T, V>(in[index(k)], v[k]);
  if constexpr (PRELOAD) {
    for_param_vecs<T, V, R, SHIFTED, COLS, RMS, PER>(w, b, head, held, index, [&](int k, int, R w_raw, R b_raw) {
      w_held[k] = w_raw;
      if constexpr (!RMS) b_held[k] = b_raw;
    });
  }
  // Each vector's elements summed on their own, then the vectors: chains of V and PER adds where
  // one running sum made a chain of V * PER dependent adds (64 at 8 rows of 65536) after the loads.
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (!held(k)) continue;
    float vec_sum = 0, vec_squares = 0;
#pragma unroll
    for (int j = 0; j < V; ++j) add(v[k][j], vec_sum, vec_squares);
    sum += vec_sum;
    squares += vec_squares;
  }
  if (SHIFTED && loose_col >= 0) add(lv, sum, squares);
  // The cluster's sums, added in rank order in every block, so every block gets the same bits.
  sum = group_reduce<BLOCK, 1>(sum, SumOp{}, scratch);
  if constexpr (SHIFTED_SUMS) squares = group_reduce<BLOCK, 1>(squares, SumOp{}, scratch);
  exchange.ready();
  if (threadIdx.x == 0) {
    exchange.push(0, sum);
    if constexpr (SHIFTED_SUMS) exchange.push(1, squares);
  }
  sum = exchange.sum(0);
  float mean = 0, rstd;
  if constexpr (RMS) {
    rstd = rsqrtf(sum / COLS + eps);
  } else if constexpr (SHIFTED_SUMS) {
    squares = exchange.sum(1);
    const float shifted_mean = sum / COLS;
    mean = shift + shifted_mean;
    rstd = rsqrtf(fmaxf(squares / COLS - shifted_mean * shifted_mean, 0.0f) + eps);
  } else {
    mean = sum / COLS;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (!held(k)) continue;
      float vec_squares = 0;
#pragma unroll
      for (int j = 0; j < V; ++j) vec_squares += (v[k][j] - mean) * (v[k][j] - mean);
      squares += vec_squares;
    }
    if (SHIFTED && loose_col >= 0) squares += (lv - mean) * (lv - mean);
    squares = group_reduce<BLOCK, 1>(squares, SumOp{}, scratch);
    if (threadIdx.x == 0) exchange.push(1, squares);
    squares = exchange.sum(1);
    rstd = rsqrtf(squares / COLS + eps);
  }
  // No block may leave while a push of its own may be in flight: say this one has all it waits
  // for, write this block's slice, wait for the others at the end.
  exchange.received();
  if (rank == 0 && threadIdx.x == 0) {
    if (!RMS) mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  if constexpr (PRELOAD) {
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (held(k)) out[index(k)] = normalize<T, V, RMS>(v[k], w_held[k], RMS ? nullptr : &b_held[RMS ? 0 : k], mean, rstd);
    }
  } else {
    for_param_vecs<T, V, R, SHIFTED, COLS, RMS, PER>(w, b, head, held, index, [&](int k, int i, R w_raw, R b_raw) {
      out[i] = normalize<T, V, RMS>(v[k], w_raw, &b_raw, mean, rstd);
    });
  }
  if (SHIFTED && loose_col >= 0) row_y[loose_col] = normalize_one<T, RMS>(lv, w, b, loose_col, mean, rstd);
  exchange.finish();
}

#endif  // sm_90+
