// softmax.cu — row-wise softmax over the last dimension of a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16): y = exp(x - max) / sum(exp(x - max)), math in fp32, the row
// maximum subtracted so no exponent overflows. Two kernels for any row (and, further down, three
// for long rows: one on any GPU, two on Hopper's clusters):
//
//   ktune_softmax_rows<T, COLS, VEC_BYTES, ROW_THREADS, ROWS_PER_BLOCK, PACKED, MIN_BLOCKS>
//     One pass: a row lives in the registers of ROW_THREADS threads (COLS is a compile-time
//     constant, so each thread's share is exact), ROWS_PER_BLOCK rows per block. Reads each
//     element once and writes it once: the minimum traffic. Rows up to a few thousand columns
//     per thread group; configs/softmax.json bounds the registers a thread holds. PACKED keeps
//     16-bit rows as loaded (twice the row in the same registers, each exponential computed twice).
//     MIN_BLOCKS: blocks an SM must hold, so ptxas keeps the registers down to fit them (a
//     shifted row's loose elements and indices cost 512-thread rows of 50257 fp16 the second block).
//     Launch: grid cdiv(rows, ROWS_PER_BLOCK), block ROW_THREADS * ROWS_PER_BLOCK.
//
//   ktune_softmax_looped<T, VEC_BYTES, BLOCK, UNROLL>
//     Any row length: one block per row, a first pass for the maximum and the sum of exponentials
//     (online: the sum is rescaled when the maximum grows), a second that reads the row again and
//     writes it. The second read usually comes from L2 (a block's row was just read).
//     Launch: grid rows, block BLOCK.
//
// All take (const T* x, T* y, long long rows, int cols, float2* partials, unsigned* counters):
// rows are cols elements apart. For most kernels (cols * sizeof(T)) % VEC_BYTES == 0, so every
// row starts aligned for vector loads; the register and cluster kernels take any row length, its
// elements off the vector boundaries one at a time (elementwise.cuh's ShiftedRow), y's rows lying
// as x's do. The workspace (partials, counters) serves the split kernel only; the
// others leave the two trailing arguments out of their signatures (a launch passes extra
// arguments a kernel does not declare without harm).
#include "elementwise.cuh"
#include "fast_exp2.cuh"
#include "row_reduce.cuh"

namespace softmax_detail {

using namespace elementwise;
using namespace row_reduce;

constexpr float kLog2e = 1.4426950408889634f;
__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }

// exp(x - m) as exp2((x - m) * log2 e), results below 2^-126 flushed to zero (fast_exp2.cuh): an
// output that small is zero within every dtype's tolerance (src/families/softmax.cpp: atol 1e-12
// and up).
__device__ __forceinline__ float exp_minus(float x, float m) { return fast_exp2((x - m) * kLog2e); }

// The same through exp2f, for the register kernel's output pass alone: with exp_minus there,
// ptxas spilled (8-12 bytes) the 512-thread packed rows of 50257 16-bit elements under MIN_BLOCKS
// 2's 64 registers, the fastest candidate at that length on an H200.
__device__ __forceinline__ float exp_minus_exp2f(float x, float m) { return exp2f((x - m) * kLog2e); }

// m, or 0 where m is -inf (nothing but -inf seen): a maximum safe to subtract, since
// -inf - -inf would be NaN.
__device__ __forceinline__ float finite_or_zero(float m) { return m == neg_inf() ? 0.0f : m; }

// A slice of a row in registers (the register kernels' whole row, or a block's part of it).

// This thread's vectors first + threadIdx.x + k * BLOCK (k < PER) of a slice ending at `end`, into
// v (-inf past the end); returns their maximum.
template <typename T, int V, int PER, int BLOCK, typename R>
__device__ __forceinline__ float load_slice(const R* in, int first, int end, float (&v)[PER][V]) {
  float m = neg_inf();
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = first + threadIdx.x + k * BLOCK;
    if (i < end) {
      unpack<T, V>(in[i], v[k]);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] = neg_inf();
    }
#pragma unroll
    for (int j = 0; j < V; ++j) m = fmaxf(m, v[k][j]);
  }
  return m;
}

// v = exp(v - m) in place (exp(-inf) = 0 for the padding); returns their sum.
template <int V, int PER>
__device__ __forceinline__ float exp_slice(float (&v)[PER][V], float m) {
  float s = 0;
#pragma unroll
  for (int k = 0; k < PER; ++k)
#pragma unroll
    for (int j = 0; j < V; ++j) {
      v[k][j] = exp_minus(v[k][j], m);
      s += v[k][j];
    }
  return s;
}

// Writes v * scale back where load_slice read it.
template <typename T, int V, int PER, int BLOCK, typename R>
__device__ __forceinline__ void store_slice(R* out, int first, int end, float (&v)[PER][V], float scale) {
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    const int i = first + threadIdx.x + k * BLOCK;
    if (i < end) {
#pragma unroll
      for (int j = 0; j < V; ++j) v[k][j] *= scale;
      out[i] = pack<T, V, R>(v[k]);
    }
  }
}

}  // namespace softmax_detail

// MIN_BLOCKS 1 passes 0, as if unset: ptxas allocates differently for an explicit 1 (a 256-thread
// packed row of 32000 fp16 took 168 registers instead of 80, and 0.2457 ms instead of 0.1332 on an
// H200: results/h200/softmax-vocab-chunks2/call7-min-blocks against call5-final).
template <typename T, int COLS, int VEC_BYTES, int ROW_THREADS, int ROWS_PER_BLOCK, int PACKED, int MIN_BLOCKS>
__global__ void __launch_bounds__(ROW_THREADS * ROWS_PER_BLOCK, MIN_BLOCKS == 1 ? 0 : MIN_BLOCKS)
    ktune_softmax_rows(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols) {
  using namespace softmax_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;                                  // whole vectors per row (at most)
  constexpr int PER = (VECS + ROW_THREADS - 1) / ROW_THREADS;    // vectors per thread
  // PACKED holds the row as loaded (a 16-bit type, two values a register) rather than widened to
  // fp32, and computes each exponential twice, once for the sum and once for the output: half the
  // registers, so a long row (a vocabulary of 50257) fits one block without spilling.
  static_assert(!PACKED || sizeof(T) == 2, "PACKED holds 16-bit rows");
  // Rows that are no whole number of vectors start off vector boundaries: GroupRow's loose
  // elements beside the whole vectors from the row's first aligned one.
  using Part = GroupRow<T, VEC_BYTES, COLS, ROW_THREADS>;
  constexpr int LOOSE = Part::LOOSE;
  __shared__ float scratch[ROWS_PER_BLOCK][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];

  const int lane = threadIdx.x % ROW_THREADS;
  const long long row = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / ROW_THREADS;
  const bool active = row < rows;  // inactive threads still take part in the block's barriers
  const T* row_x = x + (active ? row : 0) * COLS;
  T* row_y = y + (active ? row : 0) * COLS;
  const Part part(row_x, lane, active);
  const R* in = reinterpret_cast<const R*>(row_x + part.head);
  R* out = reinterpret_cast<R*>(row_y + part.head);

  float v[PACKED ? 1 : PER][V], lv[LOOSE];
  R raw[PACKED ? PER : 1];
  float m = neg_inf();
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    float w[V];
    if (part.held(k)) {
      const R r = in[lane + k * ROW_THREADS];
      if constexpr (PACKED) raw[k] = r;
      unpack<T, V>(r, w);
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) w[j] = neg_inf();
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      m = fmaxf(m, w[j]);
      if constexpr (!PACKED) v[k][j] = w[j];
    }
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q) {
    lv[q] = part.has_loose(q) ? to_float(row_x[part.loose_col(q)]) : neg_inf();
    m = fmaxf(m, lv[q]);
  }
  m = group_reduce<ROW_THREADS, ROWS_PER_BLOCK>(m, MaxOp{}, scratch);
  float s = 0;
  if constexpr (PACKED) {
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      if (part.held(k)) {
        float w[V];
        unpack<T, V>(opaque(raw[k]), w);
#pragma unroll
        for (int j = 0; j < V; ++j) s += exp_minus(w[j], m);
      }
    }
  } else {
    s = exp_slice<V, PER>(v, m);
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q) {
    lv[q] = exp_minus(lv[q], m);
    s += lv[q];
  }
  s = group_reduce<ROW_THREADS, ROWS_PER_BLOCK>(s, SumOp{}, scratch);
  const float inv = 1.0f / s;
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if (part.held(k)) {
      float w[V];
      if constexpr (PACKED) {
        unpack<T, V>(opaque(raw[k]), w);
#pragma unroll
        for (int j = 0; j < V; ++j) w[j] = exp_minus_exp2f(w[j], m) * inv;
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) w[j] = v[k][j] * inv;
      }
      out[lane + k * ROW_THREADS] = pack<T, V, R>(w);
    }
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q)
    if (part.has_loose(q)) row_y[part.loose_col(q)] = from_float<T>(lv[q] * inv);
}

template <typename T, int VEC_BYTES, int BLOCK, int UNROLL>
__global__ void __launch_bounds__(BLOCK)
    ktune_softmax_looped(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols) {
  using namespace softmax_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  const int vecs = cols / V;
  const R* in = reinterpret_cast<const R*>(x + blockIdx.x * (long long)cols);
  R* out = reinterpret_cast<R*>(y + blockIdx.x * (long long)cols);

  // Pass 1: a running maximum m and sum s of exp(x - m), rescaled once per chunk of UNROLL vectors.
  float m = neg_inf(), s = 0;
  for (int base = 0; base < vecs; base += BLOCK * UNROLL) {
    float v[UNROLL][V];
    float chunk_max = neg_inf();
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const int i = base + k * BLOCK + threadIdx.x;
      if (i < vecs) {
        unpack<T, V>(in[i], v[k]);
      } else {
#pragma unroll
        for (int j = 0; j < V; ++j) v[k][j] = neg_inf();
      }
#pragma unroll
      for (int j = 0; j < V; ++j) chunk_max = fmaxf(chunk_max, v[k][j]);
    }
    if (chunk_max == neg_inf()) continue;  // this thread's part of the chunk is past the row
    const float m_new = fmaxf(m, chunk_max);
    s *= exp_minus(m, m_new);  // 0 while m is still -inf
#pragma unroll
    for (int k = 0; k < UNROLL; ++k)
#pragma unroll
      for (int j = 0; j < V; ++j) s += exp_minus(v[k][j], m_new);
    m = m_new;
  }
  const float row_max = group_reduce<BLOCK, 1>(m, MaxOp{}, scratch);
  s = m == neg_inf() ? 0.0f : s * exp_minus(m, row_max);
  const float inv = 1.0f / group_reduce<BLOCK, 1>(s, SumOp{}, scratch);

  // Pass 2: read again (mostly from L2), write.
  for (int base = 0; base < vecs; base += BLOCK * UNROLL) {
    R raw[UNROLL];
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const int i = base + k * BLOCK + threadIdx.x;
      if (i < vecs) raw[k] = in[i];
    }
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
      const int i = base + k * BLOCK + threadIdx.x;
      if (i < vecs) {
        float v[V];
        unpack<T, V>(raw[k], v);
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = exp_minus(v[j], row_max) * inv;
        out[i] = pack<T, V, R>(v);
      }
    }
  }
}

// ---- long rows on any GPU: a row split over independent blocks ----------------------------------
//
//   ktune_softmax_split<T, COLS, VEC_BYTES, BLOCK, CHUNKS>
//     A row cut into CHUNKS slices, one block each, the slice held in registers (as the cluster
//     kernel holds it), the blocks of a row trading their partial maximum and sum through global
//     memory: one read and one write per element. Unlike a cluster, the blocks of a row are not
//     scheduled as a unit, so slices, not whole rows, fill the GPU's waves; and it needs no sm_90.
//     On the H100 its register-held slices lose to the bulk-copied ones of the staged kernels
//     (the split_staged variant below takes the longest rows); it is the one-pass long-row kernel
//     for GPUs without clusters.
//
//     A block takes its slice by ticket (an atomic counter), not by blockIdx: blocks start in an
//     order the hardware does not promise, and a block waits for its row's other slices. Tickets
//     are handed out in order, so every row below the newest one has all its slices running or
//     done, and the wait always ends once CHUNKS blocks can be resident at once.
//
//     Workspace: partials[rows * CHUNKS] (float2: a slice's maximum and its sum of exp(x - max)),
//     and counters[2 + rows] (the ticket, the blocks finished, each row's arrivals), all zero at
//     launch and left zero: the last block of a row resets its counter, the last block of the grid
//     the first two.
//     Launch: grid rows * CHUNKS, block BLOCK.

namespace softmax_detail {

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The split kernels' workspace: counters[0] hands out tickets, counters[1] counts finished blocks,
// counters[2 + row] a row's arrivals; partials[row * CHUNKS + chunk] a slice's (maximum, sum).
struct SplitWorkspace {
  float2* partials;
  unsigned* counters;
};

// This block's ticket (row * CHUNKS + chunk), the same in every thread. Synchronizes the block.
__device__ __forceinline__ unsigned take_ticket(const SplitWorkspace& w) {
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = atomicAdd(&w.counters[0], 1u);
  __syncthreads();
  return ticket;
}

// The row's maximum and 1 / sum, from its CHUNKS partials, by warp 0 (the other warps' results
// are ignored); every block of the row combines them in the same order, so all get the same bits.
template <int CHUNKS>
__device__ __forceinline__ float2 combine_partials(const float2* partials) {
  float m = neg_inf();
  for (int c = threadIdx.x; c < CHUNKS; c += 32) m = fmaxf(m, __ldcg(&partials[c]).x);
  m = row_reduce::group_reduce<32, 1>(m, row_reduce::MaxOp{}, nullptr);
  float s = 0;
  for (int c = threadIdx.x; c < CHUNKS; c += 32) {
    const float2 p = __ldcg(&partials[c]);
    s += p.y * exp_minus(p.x, m);
  }
  s = row_reduce::group_reduce<32, 1>(s, row_reduce::SumOp{}, nullptr);
  return make_float2(m, 1.0f / s);
}

// Publishes this slice's maximum m and sum s (of exp(x - m)) for the row's other blocks. Thread 0.
template <int CHUNKS>
__device__ __forceinline__ void publish_partial(const SplitWorkspace& w, long long row, int chunk, float m, float s) {
  w.partials[row * CHUNKS + chunk] = make_float2(m, s);
  __threadfence();  // the partial is visible GPU-wide before the arrival that announces it
  atomicAdd(&w.counters[2 + row], 1u);
}

// Waits until every slice of the row has published, and returns the factor that turns this
// slice's exp(x - m) into the row's softmax: exp(m - row max) / row sum. Every thread of the block
// must call it (it synchronizes the block).
template <int CHUNKS>
__device__ __forceinline__ float await_row_scale(const SplitWorkspace& w, long long row, float m) {
  __shared__ float2 row_stats;  // the row's maximum and 1 / sum
  unsigned* const arrivals = w.counters + 2 + row;
  if (threadIdx.x == 0)
    while (load_acquire(arrivals) < CHUNKS) __nanosleep(64);
  __syncwarp();
  if (threadIdx.x < 32) {
    const float2 stats = combine_partials<CHUNKS>(w.partials + row * CHUNKS);
    if (threadIdx.x == 0) {
      row_stats = stats;
      // A second arrival once past the wait: the last of the row's 2 * CHUNKS has every block
      // of the row past it, so the counter can go back to zero for the next launch.
      if (atomicAdd(arrivals, 1u) == 2 * CHUNKS - 1) *arrivals = 0;
    }
  }
  __syncthreads();
  // A slice masked out whole (m = -inf) took its exponentials, all 0, against finite_or_zero(m):
  // any finite factor keeps them 0, and exp(0 - row max) could overflow.
  return m == neg_inf() ? 0.0f : exp_minus(m, row_stats.x) * row_stats.y;
}

// publish_partial, then await_row_scale. m and s need only be right in thread 0.
template <int CHUNKS>
__device__ __forceinline__ float trade_row_partials(const SplitWorkspace& w, long long row, int chunk, float m,
                                                    float s) {
  if (threadIdx.x == 0) publish_partial<CHUNKS>(w, row, chunk, m, s);
  return await_row_scale<CHUNKS>(w, row, m);
}

// Counts this block finished; the grid's last block resets the ticket and the count for the next
// launch (every block has taken its ticket by then: each takes one before it finishes).
__device__ __forceinline__ void finish_split_block(const SplitWorkspace& w) {
  if (threadIdx.x == 0 && atomicAdd(&w.counters[1], 1u) == gridDim.x - 1) {
    w.counters[0] = 0;
    w.counters[1] = 0;
  }
}

}  // namespace softmax_detail

template <typename T, int COLS, int VEC_BYTES, int BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
    ktune_softmax_split(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols,
                        float2* __restrict__ partials, unsigned* __restrict__ counters) {
  using namespace softmax_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int SLICE = (VECS + CHUNKS - 1) / CHUNKS;  // vectors per block
  constexpr int PER = (SLICE + BLOCK - 1) / BLOCK;     // vectors per thread
  static_assert(COLS % V == 0, "rows are whole vectors");
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  const SplitWorkspace work{partials, counters};

  const unsigned ticket = take_ticket(work);
  const long long row = ticket / CHUNKS;
  const int chunk = ticket % CHUNKS;
  const int first = chunk * SLICE;
  const int end = first + SLICE < VECS ? first + SLICE : VECS;
  const R* in = reinterpret_cast<const R*>(x + row * COLS);
  R* out = reinterpret_cast<R*>(y + row * COLS);

  float v[PER][V];
  float m = load_slice<T, V, PER, BLOCK>(in, first, end, v);
  m = group_reduce<BLOCK, 1>(m, MaxOp{}, scratch);
  // A slice masked out whole (all -inf) has no maximum to subtract: its exponentials are taken
  // against 0 instead (all 0), and its partial (-inf, 0) adds nothing to the row's.
  const float shift = finite_or_zero(m);
  float s = exp_slice<V, PER>(v, shift);
  s = group_reduce<BLOCK, 1>(s, SumOp{}, scratch);

  const float scale = trade_row_partials<CHUNKS>(work, row, chunk, m, s);
  store_slice<T, V, PER, BLOCK>(out, first, end, v, scale);
  finish_split_block(work);
}

// ---- long rows on Hopper: a row split over a thread-block cluster -------------------------------
//
//   ktune_softmax_cluster<T, COLS, VEC_BYTES, BLOCK, CLUSTER>   (sm_90+)
//     A row of up to CLUSTER * BLOCK * 64 values: each of the CLUSTER blocks of a cluster holds
//     its slice in registers, and the blocks trade their partial maximum and sum through
//     distributed shared memory. Reads and writes each element once, as the register kernel
//     does, for rows no single block can hold (the looped kernel's second read of a 512 KiB row
//     misses L2 once a few hundred rows are in flight).
//     Launch: grid rows * CLUSTER (the cluster shape is compiled in), block BLOCK.
//
//   ktune_softmax_staged<T, COLS, BLOCK, CLUSTER>   (sm_90+)
//     The same split of a row over a cluster, with each block's slice staged in shared memory by
//     one bulk copy (the copy engine, not the threads, fetches it: a whole slice in flight per
//     block) and written back from there by another. Rows whose bytes are a multiple of 16.
//     Launch: grid rows * CLUSTER, block BLOCK, dynamic shared memory the slice's bytes.
//
//   ktune_softmax_split_staged<T, COLS, BLOCK, CHUNKS, PIECES, PREFETCH>   (sm_90+)
//     softmax_split's slices by ticket and partials through global memory, with each slice staged
//     as softmax_staged stages it (bulk copies in and out, the maximum and the sum in one pass
//     over shared memory): the copy engine's whole-slice requests without a cluster's waves. The
//     slice moves in PIECES bulk copies each way, so the threads start on its first piece while
//     the rest is arriving, and the first written piece leaves while the next is computed.
//     PREFETCH > 0: each block also asks for the slice PREFETCH tickets ahead to be brought into
//     L2, so reading from DRAM goes on while blocks wait for their rows.
//     Any row length: where a row's bytes are no multiple of 16, the bulk copies take its whole
//     vectors (from the first 16-byte boundary) and the first slice's threads the few elements
//     before and after them, one each (a vocabulary of 50257 columns is such a row).
//     Launch: grid rows * CHUNKS, block BLOCK, dynamic shared memory the slice's bytes.
//
// Compiled for sm_90 and newer only: the other kernels of this file must still build for sm_80,
// where __cluster_dims__ is an error (configs/softmax_cluster.json says min_arch 90).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

#include "cluster_exchange.cuh"

namespace softmax_detail {

using namespace hopper_async;

}  // namespace softmax_detail

template <typename T, int COLS, int VEC_BYTES, int BLOCK, int CLUSTER>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
    ktune_softmax_cluster(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols) {
  using namespace softmax_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int SLICE = (VECS + CLUSTER - 1) / CLUSTER;  // vectors per block
  constexpr int PER = (SLICE + BLOCK - 1) / BLOCK;       // vectors per thread
  // Rows that are no whole number of vectors: ShiftedRow's loose elements (fewer than BLOCK) go
  // one to a thread of the cluster's first block, beside the whole vectors.
  constexpr bool SHIFTED = COLS % V != 0;
  static_assert(!SHIFTED || ShiftedRow<T, VEC_BYTES>::MAX_LOOSE <= BLOCK, "a loose element per thread at most");
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  __shared__ ClusterExchange<CLUSTER, 2> exchange;  // the blocks' maxima (round 0) and sums (1)
  exchange.init();

  const unsigned rank = cluster_rank();
  const long long row = blockIdx.x / CLUSTER;  // whole clusters per row: every block has a row
  const T* row_x = x + row * COLS;
  T* row_y = y + row * COLS;
  const ClusterSlice<T, VEC_BYTES, COLS, SLICE> slice(row_x, rank);
  const int head = slice.head, first = slice.first, end = slice.end, loose_col = slice.loose_col;
  const R* in = reinterpret_cast<const R*>(row_x + head);
  R* out = reinterpret_cast<R*>(row_y + head);

  float v[PER][V];
  float m = load_slice<T, V, PER, BLOCK>(in, first, end, v);
  float lv = SHIFTED && loose_col >= 0 ? to_float(row_x[loose_col]) : neg_inf();
  m = fmaxf(m, lv);
  m = group_reduce<BLOCK, 1>(m, MaxOp{}, scratch);
  exchange.ready();
  if (threadIdx.x == 0) exchange.push(0, m);
  m = exchange.combine(0, MaxOp{});

  float s = exp_slice<V, PER>(v, m);
  lv = exp_minus(lv, m);
  s += lv;
  s = group_reduce<BLOCK, 1>(s, SumOp{}, scratch);
  if (threadIdx.x == 0) exchange.push(1, s);
  s = exchange.sum(1);
  exchange.received();
  const float inv = 1.0f / s;
  store_slice<T, V, PER, BLOCK>(out, first, end, v, inv);
  if (SHIFTED && loose_col >= 0) row_y[loose_col] = from_float<T>(lv * inv);
  exchange.finish();
}

template <typename T, int COLS, int BLOCK, int CLUSTER>
__global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(BLOCK)
    ktune_softmax_staged(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols) {
  using namespace softmax_detail;
  using R = uint4;
  constexpr int V = 16 / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int SLICE = (VECS + CLUSTER - 1) / CLUSTER;  // 16-byte vectors per block
  static_assert(COLS % V == 0, "rows are whole 16-byte vectors");
  extern __shared__ R slice[];
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  __shared__ ClusterExchange<CLUSTER, 2> exchange;  // the blocks' maxima (round 0) and sums (1)
  __shared__ alignas(8) unsigned long long loaded;
  exchange.init();

  const unsigned rank = cluster_rank();
  const long long row = blockIdx.x / CLUSTER;
  const int first = rank * SLICE;
  const int count = first < VECS ? (first + SLICE < VECS ? SLICE : VECS - first) : 0;
  const unsigned bar = smem_addr(&loaded), buffer = smem_addr(slice);
  const R* in = reinterpret_cast<const R*>(x + row * COLS) + first;
  R* out = reinterpret_cast<R*>(y + row * COLS) + first;

  if (threadIdx.x == 0) {
    mbar_init(bar, 1);
    fence_mbarrier_init();
    if (count > 0) {
      mbar_arrive_expect_tx(bar, count * 16u);
      bulk_load(buffer, in, count * 16u, bar);
    } else {
      mbar_arrive(bar);
    }
  }
  __syncthreads();
  mbar_wait(bar, 0);

  float m = neg_inf();
  for (int i = threadIdx.x; i < count; i += BLOCK) {
    float v[V];
    unpack<T, V>(slice[i], v);
#pragma unroll
    for (int j = 0; j < V; ++j) m = fmaxf(m, v[j]);
  }
  m = group_reduce<BLOCK, 1>(m, MaxOp{}, scratch);
  exchange.ready();
  if (threadIdx.x == 0) exchange.push(0, m);
  m = exchange.combine(0, MaxOp{});

  float s = 0;
  for (int i = threadIdx.x; i < count; i += BLOCK) {
    float v[V];
    unpack<T, V>(slice[i], v);
#pragma unroll
    for (int j = 0; j < V; ++j) s += exp_minus(v[j], m);
  }
  s = group_reduce<BLOCK, 1>(s, SumOp{}, scratch);
  if (threadIdx.x == 0) exchange.push(1, s);
  s = exchange.sum(1);
  exchange.received();
  const float inv = 1.0f / s;

  for (int i = threadIdx.x; i < count; i += BLOCK) {
    float v[V];
    unpack<T, V>(slice[i], v);
#pragma unroll
    for (int j = 0; j < V; ++j) v[j] = exp_minus(v[j], m) * inv;
    slice[i] = pack<T, V, R>(v);
  }
  fence_proxy_async_shared();  // the threads' writes, visible to the copy engine
  __syncthreads();
  if (threadIdx.x == 0 && count > 0) {
    bulk_store(out, buffer, count * 16u);
    bulk_commit();
    bulk_wait_read<0>();  // the slice must stay until the copy engine has read it
  }
  exchange.finish();
}

namespace softmax_detail {

// A staged slice of `count` 16-byte vectors arrives in PIECES pieces of up to `piece` vectors,
// each a bulk copy completing its own barrier, so the threads can start on the first piece while
// the others are still on their way.
template <int PIECES>
struct Pieces {
  int count, piece;
  __device__ __forceinline__ Pieces(int count) : count(count), piece((count + PIECES - 1) / PIECES) {}
  __device__ __forceinline__ int begin(int p) const { return p * piece < count ? p * piece : count; }
  __device__ __forceinline__ int end(int p) const { return begin(p + 1); }
};

// Thread 0: starts the bulk copies of `src`'s pieces into `slice`, one barrier each (initialized
// here, for one arrival).
template <int PIECES>
__device__ __forceinline__ void start_staged_load(uint4* slice, const uint4* src, Pieces<PIECES> pieces,
                                                  unsigned long long* loaded) {
  for (int p = 0; p < PIECES; ++p) mbar_init(smem_addr(&loaded[p]), 1);
  fence_mbarrier_init();
  for (int p = 0; p < PIECES; ++p) {
    const unsigned bar = smem_addr(&loaded[p]);
    const int n = pieces.end(p) - pieces.begin(p);
    if (n == 0) {
      mbar_arrive(bar);
      continue;
    }
    mbar_arrive_expect_tx(bar, n * 16u);
    bulk_load(smem_addr(slice + pieces.begin(p)), src + pieces.begin(p), n * 16u, bar);
  }
}

// One pass over the staged slice, piece by piece as each arrives: the block's maximum, and the
// sum of exp(x - that maximum), kept relative to the running maximum and rescaled when a vector
// raises it (one extra exponential a vector, not an element). `loose` is a value of the row held
// by this thread outside the slice (a shifted row's loose element; -inf for none), counted as the
// thread's first. Synchronizes the block.
template <typename T, int BLOCK, int PIECES>
__device__ __forceinline__ float2 staged_partial(const uint4* slice, Pieces<PIECES> pieces,
                                                 unsigned long long* loaded,
                                                 float (*scratch)[BLOCK > 32 ? BLOCK / 32 : 1], float loose) {
  using namespace elementwise;
  using namespace row_reduce;
  constexpr int V = 16 / sizeof(T);
  float m = loose, s = loose == neg_inf() ? 0.0f : 1.0f;
#pragma unroll
  for (int p = 0; p < PIECES; ++p) {
    mbar_wait(smem_addr(&loaded[p]), 0);
    for (int i = pieces.begin(p) + threadIdx.x; i < pieces.end(p); i += BLOCK) {
      float v[V];
      unpack<T, V>(slice[i], v);
      float vm = v[0];
#pragma unroll
      for (int j = 1; j < V; ++j) vm = fmaxf(vm, v[j]);
      if (vm == neg_inf()) continue;  // masked out: adds nothing, and -inf - -inf would be NaN
      const float grown = fmaxf(m, vm);
      s *= exp_minus(m, grown);  // exp(-inf) = 0 while the thread has seen nothing
#pragma unroll
      for (int j = 0; j < V; ++j) s += exp_minus(v[j], grown);
      m = grown;
    }
  }
  const float block_max = group_reduce<BLOCK, 1>(m, MaxOp{}, scratch);
  s = m == neg_inf() ? 0.0f : s * exp_minus(m, block_max);  // a thread that saw only -inf adds 0
  return make_float2(block_max, group_reduce<BLOCK, 1>(s, SumOp{}, scratch));
}

// Rewrites the slice as exp(x - m) * scale, sending each piece to `out` by a bulk copy as soon as
// it is written; returns once the copy engine has read them all.
template <typename T, int BLOCK, int PIECES>
__device__ __forceinline__ void staged_write(uint4* slice, Pieces<PIECES> pieces, float m, float scale, uint4* out) {
  using namespace elementwise;
  constexpr int V = 16 / sizeof(T);
#pragma unroll
  for (int p = 0; p < PIECES; ++p) {
    for (int i = pieces.begin(p) + threadIdx.x; i < pieces.end(p); i += BLOCK) {
      float v[V];
      unpack<T, V>(slice[i], v);
#pragma unroll
      for (int j = 0; j < V; ++j) v[j] = exp_minus(v[j], m) * scale;
      slice[i] = pack<T, V, uint4>(v);
    }
    fence_proxy_async_shared();  // the threads' writes, visible to the copy engine
    __syncthreads();
    const int n = pieces.end(p) - pieces.begin(p);
    if (threadIdx.x == 0 && n > 0) {
      bulk_store(out + pieces.begin(p), smem_addr(slice + pieces.begin(p)), n * 16u);
      bulk_commit();
    }
  }
  if (threadIdx.x == 0) bulk_wait_read<0>();  // the slice must stay until the copy engine has read it
  __syncthreads();
}

// A row's whole 16-byte vectors, counted from column `head` (0 unless the row's bytes are no
// multiple of 16, so that rows start off vector boundaries: ShiftedRow), and its loose elements.
template <typename T, int COLS>
struct StagedRow {
  static constexpr int V = 16 / sizeof(T);
  static constexpr bool SHIFTED = COLS % V != 0;
  int head = 0, vecs = COLS / V, loose = 0;
  __device__ __forceinline__ StagedRow(const T* row) {
    if constexpr (SHIFTED) {
      const ShiftedRow<T, 16> split(row, COLS);
      head = split.head, vecs = split.vecs, loose = split.loose;
    }
  }
  // The column of loose element t < loose.
  __device__ __forceinline__ int loose_col(int t) const { return t < head ? t : head + vecs * V + (t - head); }
};

// Brings the slice of a later ticket into L2 (if that ticket has a row), so that the block which
// takes it finds its bulk load in L2: DRAM keeps reading while this block's slice waits for the
// rest of its row, which the whole-slice staging otherwise leaves idle.
template <int COLS, int CHUNKS, typename T>
__device__ __forceinline__ void prefetch_slice(const T* x, long long rows, unsigned ticket) {
  constexpr int SLICE = (COLS / StagedRow<T, COLS>::V + CHUNKS - 1) / CHUNKS;
  const long long row = ticket / CHUNKS;
  if (row >= rows) return;
  const StagedRow<T, COLS> split(x + row * COLS);
  const int first = (ticket % CHUNKS) * SLICE;
  const int n = first + SLICE < split.vecs ? SLICE : split.vecs - first;
  bulk_prefetch_l2(reinterpret_cast<const uint4*>(x + row * COLS + split.head) + first, n * 16u);
}

}  // namespace softmax_detail

template <typename T, int COLS, int BLOCK, int CHUNKS, int PIECES, int PREFETCH>
__global__ void __launch_bounds__(BLOCK)
    ktune_softmax_split_staged(const T* __restrict__ x, T* __restrict__ y, long long rows, int cols,
                               float2* __restrict__ partials, unsigned* __restrict__ counters) {
  using namespace softmax_detail;
  using R = uint4;
  using Row = StagedRow<T, COLS>;
  constexpr int SLICE = (COLS / Row::V + CHUNKS - 1) / CHUNKS;  // 16-byte vectors per block
  // A shifted row's loose elements (before its first whole vector and after its last) go one to a
  // thread of the row's first slice, beside its staged vectors.
  static_assert(!Row::SHIFTED || ShiftedRow<T, 16>::MAX_LOOSE <= BLOCK, "a loose element per thread at most");
  extern __shared__ R slice[];
  __shared__ float scratch[1][BLOCK > 32 ? BLOCK / 32 : 1];
  __shared__ alignas(8) unsigned long long loaded[PIECES];
  const SplitWorkspace work{partials, counters};

  const unsigned ticket = take_ticket(work);
  const long long row = ticket / CHUNKS;
  const int chunk = ticket % CHUNKS;
  const T* row_x = x + row * COLS;
  T* row_y = y + row * COLS;
  const Row split(row_x);
  const int first = chunk * SLICE;
  // The config leaves no slice empty, a shifted row's one whole vector fewer included.
  const Pieces<PIECES> pieces(first + SLICE < split.vecs ? SLICE : split.vecs - first);
  const int loose_col = Row::SHIFTED && chunk == 0 && static_cast<int>(threadIdx.x) < split.loose
                            ? split.loose_col(threadIdx.x)
                            : -1;
  const float loose = loose_col >= 0 ? to_float(row_x[loose_col]) : neg_inf();
  if (threadIdx.x == 0) {
    start_staged_load<PIECES>(slice, reinterpret_cast<const R*>(row_x + split.head) + first, pieces, loaded);
    if constexpr (PREFETCH > 0) prefetch_slice<COLS, CHUNKS>(x, rows, ticket + PREFETCH);
  }
  __syncthreads();  // the barriers are initialized
  const float2 part = staged_partial<T, BLOCK, PIECES>(slice, pieces, loaded, scratch, loose);
  const float shift = finite_or_zero(part.x);  // as in ktune_softmax_split
  const float scale = trade_row_partials<CHUNKS>(work, row, chunk, part.x, part.y);
  if (loose_col >= 0) row_y[loose_col] = from_float<T>(exp_minus(loose, shift) * scale);
  staged_write<T, BLOCK, PIECES>(slice, pieces, shift, scale, reinterpret_cast<R*>(row_y + split.head) + first);
  finish_split_block(work);
}

#endif  // sm_90+
