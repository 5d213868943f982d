// layernorm_backward.cu — LayerNorm's backward pass over a row-major rows x cols tensor of T
// (float, __half, __nv_bfloat16), math in fp32. With xhat = (x - mean) * rstd and g = w * dy:
//
//   dx = (g - (xhat * mean(g * xhat) + mean(g))) * rstd     (the means over the row)
//   dw = sum over rows of dy * xhat,   db = sum over rows of dy
//
//   ktune_layernorm_bwd<T, COLS, VEC_BYTES, ROW_THREADS, PREFETCH, GROUPS, REG_PARTIALS, STAGES, L2_AHEAD>
//     A persistent grid of blocks of GROUPS groups of ROW_THREADS threads, group g of block b
//     taking rows b * GROUPS + g, then gridDim.x * GROUPS further on, and so on: a thread owns the
//     same columns in every row, so it keeps w in registers and its partial dw and db in its own
//     slots of shared memory across rows (stage 1 of the weight gradients' reduction). PREFETCH 1
//     issues the next row's loads before this row's reduction, so they overlap it; the two row
//     sums go in one exchange. REG_PARTIALS 1 keeps the partials in registers instead, and puts
//     them in the shared slots once, after the last row: two shared loads and two stores an
//     element and row fewer, for rows short enough that the registers hold them.
//     STAGES > 0 (sm_90+; one group a block, rows a whole number of 16-byte pieces, partials in
//     registers): x's and dy's rows come through a ring of STAGES slots of shared memory, each
//     filled by two bulk copies (the copy engine: STAGES rows in flight a block whatever the
//     registers hold, where PREFETCH's one row ahead in registers took a 256-thread block at 8192
//     columns to 240 registers, eight warps an SM). A thread copies its vectors of a row from its
//     slot into registers and goes on as in the other path; the slot is refilled with the row
//     STAGES further on once the row's reduction has passed its barrier (every thread has its
//     copy by then). The ring and the partials' slots share the dynamic shared memory: the
//     partials are written there only after the last row.
//     L2_AHEAD > 0 (sm_90+, without STAGES): the group's row L2_AHEAD rounds ahead is asked into
//     L2 by one bulk prefetch each of x's and dy's (the copy engine: no registers, no shared
//     memory, nothing to wait for), so that DRAM has more of the block's bytes in flight than the
//     registers hold and the loads of that row find them in L2. ncu had the 4000 x 5001 winner
//     keeping an H200's DRAM 51-54% busy (results/h200/lnb-balanced-s37): latency, not bandwidth.
//
//     Stage 2 sums the groups' partials in shared memory and adds each block's into the fp32
//     workspace `acc` (dW's sums from acc[0], dB's from acc[DB_AT], cols rounded up to a multiple
//     of 4) with atomics, four columns to one on Hopper, so several rows in flight per block cost
//     no more atomics. The columns come in stripes of a quad (four columns) a thread, each with
//     its own counter in `arrivals`: the last block to arrive at a stripe rounds it into dw and db
//     and zeroes its workspace and counter for the next launch.
//     Launch: grid min(cdiv(rows, GROUPS), blocks), block ROW_THREADS * GROUPS, dynamic shared
//     memory 8 * PER * V * ROW_THREADS * GROUPS bytes (PER vectors of V elements a thread), or
//     with STAGES the larger of that and the ring's STAGES * 2 * COLS * sizeof(T).
//
//   Shifted rows: where a row's bytes are no multiple of VEC_BYTES (an odd length), rows start
//     at every offset from a vector boundary, and each is split as the forward kernels split it
//     (elementwise.cuh's GroupRow): loose elements before the first aligned vector and after the
//     last, whole vectors between. A group keeps the same split in every row it takes, because
//     the grid's row step (gridDim.x * GROUPS) is a multiple of V elements' worth of rows (the
//     config's BLOCKS rounds to it; the kernel traps on a grid that breaks it): a thread then
//     owns the same columns in every row and keeps its partials in its own slots as above. With
//     GROUPS > 1 the groups' splits differ (their first rows start at different offsets), so
//     stage 2 finds a column's slot in each group by that group's own split.
//
// Arguments: const T* x, const T* w, const T* dy, const float* mean, const float* rstd, T* dx,
// T* dw, T* db, float* acc, unsigned* arrivals (cols / 128 + 1 counters, at least one a stripe:
// cdiv(cols / 4, threads)), long long rows, int cols.
#include "elementwise.cuh"
#include "row_reduce.cuh"
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#include "hopper_async.cuh"
#endif

namespace layernorm_bwd_detail {

// Adds 4 consecutive floats into p with atomics: one 16-byte vector atomic on Hopper or newer where
// p is 16-byte aligned, else one at a time.
__device__ __forceinline__ void add_columns(float* p, const float (&v)[4]) {
#if __CUDA_ARCH__ >= 900
  if (reinterpret_cast<unsigned long long>(p) % 16 == 0) {
    atomicAdd(reinterpret_cast<float4*>(p), make_float4(v[0], v[1], v[2], v[3]));
    return;
  }
#endif
#pragma unroll
  for (int i = 0; i < 4; ++i) atomicAdd(p + i, v[i]);
}

// G consecutive floats of shared memory in one access (G = 1, 2 or 4; p aligned to 4 G bytes).
template <int G>
__device__ __forceinline__ void load_floats(const float* p, float* v) {
  if constexpr (G == 4) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
  } else if constexpr (G == 2) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    v[0] = t.x, v[1] = t.y;
  } else {
    v[0] = *p;
  }
}
template <int G>
__device__ __forceinline__ void store_floats(float* p, const float* v) {
  if constexpr (G == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
  } else if constexpr (G == 2) {
    *reinterpret_cast<float2*>(p) = make_float2(v[0], v[1]);
  } else {
    *p = v[0];
  }
}

}  // namespace layernorm_bwd_detail

template <typename T, int COLS, int VEC_BYTES, int ROW_THREADS, int PREFETCH = 0, int GROUPS = 1, int REG_PARTIALS = 0,
          int STAGES = 0, int L2_AHEAD = 0>
__global__ void __launch_bounds__(ROW_THREADS * GROUPS)
    ktune_layernorm_bwd(const T* __restrict__ x, const T* __restrict__ w, const T* __restrict__ dy,
                        const float* __restrict__ mean, const float* __restrict__ rstd, T* __restrict__ dx,
                        T* __restrict__ dw, T* __restrict__ db, float* __restrict__ acc,
                        unsigned* __restrict__ arrivals, long long rows, int cols) {
  using namespace elementwise;
  using namespace row_reduce;
  using namespace layernorm_bwd_detail;
  using R = typename Raw<VEC_BYTES>::type;
  using Share = GroupRow<T, VEC_BYTES, COLS, ROW_THREADS>;
  constexpr int V = VEC_BYTES / sizeof(T);
  constexpr int VECS = COLS / V;
  constexpr int PER = VECS > 0 ? (VECS + ROW_THREADS - 1) / ROW_THREADS : 1;  // a short row: loose alone
  constexpr int THREADS = ROW_THREADS * GROUPS;
  constexpr bool SHIFTED = Share::SHIFTED;
  constexpr int LOOSE = SHIFTED ? Share::LOOSE : 1;
  static_assert(STAGES == 0 || (!SHIFTED && GROUPS == 1 && !PREFETCH && REG_PARTIALS && ROW_THREADS > 32 &&
                                COLS * sizeof(T) % 16 == 0),
                "the ring takes one group a block, rows of whole 16-byte pieces, partials in registers, and "
                "the reduction's block barrier");
  static_assert(L2_AHEAD == 0 || (STAGES == 0 && L2_AHEAD > PREFETCH),
                "the L2 prefetch is for the register path, beyond the row PREFETCH already loads");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  if constexpr (STAGES > 0 || L2_AHEAD > 0) __trap();  // bulk copies are sm_90's (the config asks arch >= 90)
#endif
  __shared__ float2 scratch[GROUPS][ROW_THREADS > 32 ? ROW_THREADS / 32 : 1];
  // GROUPS groups of ROW_THREADS threads, each on its own rows; a thread owns the same columns
  // in every row it takes.
  const int group = threadIdx.x / ROW_THREADS, lane = threadIdx.x % ROW_THREADS;
  const long long stride = (long long)gridDim.x * GROUPS;
  const long long first_of_group = (long long)blockIdx.x * GROUPS + group;
  if constexpr (SHIFTED) {
    if ((stride * COLS) % V != 0) __trap();  // a group's rows would not share one split
  }
  // This group's split of its rows (the same in each; whole vectors from column 0 when unshifted).
  const Share share(x + first_of_group * COLS, lane, true);
  const auto held = [&](int k) { return share.held(k); };
  const auto col_of = [&](int k) { return share.head + (lane + k * ROW_THREADS) * V; };

  // Registers are what bounds the row length: x, dy and w stay packed in their storage type
  // between uses (unpacked again for dx), and the dW/dB partials live in shared memory. A thread
  // reads and writes its partials of a vector G floats to an access: one 16-byte access for four
  // columns instead of four scalar ones, a quarter of the loop's shared-memory instructions (on an
  // H200, 4000 x 5001 fp16 0.0473 -> 0.0456 ms: results/h200/lnb-s43). They are laid out
  // [k][chunk][thread][G] so that a warp's accesses are consecutive and fall in distinct banks in
  // each quarter-warp phase (stage 2, once a launch, reads a column's slots 16 bytes apart across
  // threads: four-way conflicts there).
  extern __shared__ __align__(16) float partials[];  // 2 * PER * V * THREADS floats: dw's, then db's (16: the ring's bulk copies)
  float* dw_part = partials;
  float* db_part = partials + PER * V * THREADS;
  constexpr int G = V >= 4 ? 4 : V, CHUNKS = V / G;
  const auto at = [](int k, int j, int thread) { return ((k * CHUNKS + j / G) * THREADS + thread) * G + j % G; };
  R w_raw[PER];
  float w_loose[LOOSE], dw_loose[LOOSE], db_loose[LOOSE];
  float dw_reg[REG_PARTIALS ? PER : 1][V], db_reg[REG_PARTIALS ? PER : 1][V];
#pragma unroll
  for (int k = 0; k < PER; ++k) {
    if constexpr (SHIFTED) {  // column head is no vector boundary of w
      T* e = reinterpret_cast<T*>(&w_raw[k]);
#pragma unroll
      for (int j = 0; j < V; ++j) e[j] = held(k) ? w[col_of(k) + j] : T{};
    } else {
      w_raw[k] = held(k) ? reinterpret_cast<const R*>(w)[lane + k * ROW_THREADS] : R{};
    }
#pragma unroll
    for (int j = 0; j < V; ++j) {
      if constexpr (REG_PARTIALS) {
        dw_reg[k][j] = db_reg[k][j] = 0;
      } else {
        dw_part[at(k, j, threadIdx.x)] = db_part[at(k, j, threadIdx.x)] = 0;
      }
    }
  }
#pragma unroll
  for (int q = 0; q < LOOSE; ++q) {
    w_loose[q] = share.has_loose(q) ? to_float(w[share.loose_col(q)]) : 0.0f;
    dw_loose[q] = db_loose[q] = 0;
  }

  // A row's x, dy and statistics (zeros for a group past the last row: it still takes part in
  // the block's reductions); with PREFETCH the next row's are in flight while this one is
  // reduced and written, so a group's rows overlap instead of queueing behind each other's loads.
  struct Row {
    R x[PER], dy[PER];
    float x_loose[LOOSE], dy_loose[LOOSE];
    float mu, rs;
  };
  // This thread's vectors of a row of x and dy, from memory or from the row's slot of the ring;
  // zero bits (0 in every dtype) for a row past the last and a vector past the row.
  const auto take_vectors = [&](const R* x_vecs, const R* dy_vecs, bool active, Row& r) {
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      r.x[k] = active && held(k) ? x_vecs[lane + k * ROW_THREADS] : R{};
      r.dy[k] = active && held(k) ? dy_vecs[lane + k * ROW_THREADS] : R{};
    }
  };
  // The vectors' loads are issued before the statistics': the same kernel otherwise, the 4000 x
  // 5001 fp16 winner measured 0.0477 ms against 0.0494 and 0.0493 with the statistics first
  // (results/h200/lnb-copy-ring-s30, an H200; bf16 0.0487 against 0.0490 and 0.0489).
  const auto load_row = [&](long long row, Row& r) {
    const bool active = row < rows;
    const T* x_row = x + (active ? row : 0) * COLS;
    const T* dy_row = dy + (active ? row : 0) * COLS;
    const R* x_vecs = reinterpret_cast<const R*>(x_row + share.head);
    const R* dy_vecs = reinterpret_cast<const R*>(dy_row + share.head);
    take_vectors(x_vecs, dy_vecs, active, r);
    r.mu = active ? mean[row] : 0.0f;
    r.rs = active ? rstd[row] : 0.0f;
#pragma unroll
    for (int q = 0; q < LOOSE; ++q) {
      const bool has = active && share.has_loose(q);
      r.x_loose[q] = has ? to_float(x_row[share.loose_col(q)]) : 0.0f;
      r.dy_loose[q] = has ? to_float(dy_row[share.loose_col(q)]) : 0.0f;
    }
  };
  // STAGES: the ring of rows in shared memory (x's row, then dy's, a slot), one mbarrier a slot.
  // The block's i-th row, blockIdx.x + i * gridDim.x, goes through slot i % STAGES.
  constexpr unsigned ROW_BYTES = COLS * sizeof(T);
  constexpr int RING = STAGES > 0 ? STAGES : 1;
  __shared__ unsigned long long full[RING];
  const auto slot_of = [&](long long i) { return reinterpret_cast<char*>(partials) + (i % RING) * 2 * ROW_BYTES; };
  const auto issue = [&](long long i) {  // thread 0: the block's row i into its slot
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    using namespace hopper_async;
    const long long row = blockIdx.x + i * gridDim.x;
    if (row >= rows) return;
    const unsigned bar = smem_addr(&full[i % RING]), slot = smem_addr(slot_of(i));
    mbar_arrive_expect_tx(bar, 2 * ROW_BYTES);
    bulk_load(slot, x + row * COLS, ROW_BYTES, bar);
    bulk_load(slot + ROW_BYTES, dy + row * COLS, ROW_BYTES, bar);
#endif
  };
  long long turn = 0;  // the block's rows so far: the ring's position
  // The statistics of the row after the one being copied in, loaded a row ahead: each row's are a
  // load from DRAM of their own, which would otherwise wait at the head of every row.
  float ahead_mu = 0, ahead_rs = 0;
  const auto load_stats = [&](long long row) {
    ahead_mu = row < rows ? mean[row] : 0.0f;
    ahead_rs = row < rows ? rstd[row] : 0.0f;
  };
  const auto load_staged = [&](long long row, Row& r) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    const bool active = row < rows;
    r.mu = ahead_mu;
    r.rs = ahead_rs;
    load_stats(row + stride);
    if (active) hopper_async::mbar_wait(hopper_async::smem_addr(&full[turn % RING]), (turn / RING) & 1);
    take_vectors(reinterpret_cast<const R*>(slot_of(turn)), reinterpret_cast<const R*>(slot_of(turn) + ROW_BYTES),
                 active, r);
    // These reads are the generic proxy's and the slot's refill is the copy engine's (the async
    // proxy): the proxy fence orders them, as the block barrier before the refill orders threads.
    if (active) hopper_async::fence_proxy_async_shared();
#endif
  };
  if constexpr (STAGES > 0) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) {
      for (int s = 0; s < STAGES; ++s) hopper_async::mbar_init(hopper_async::smem_addr(&full[s]), 1);
      hopper_async::fence_mbarrier_init();
      for (int s = 0; s < STAGES; ++s) issue(s);
    }
    __syncthreads();  // the barriers initialized before anyone waits on them
#endif
  }
  // L2_AHEAD: a row of x (lane 0) and of dy (the group's last lane) into L2, whole 16-byte pieces
  // from the one holding its first element (never past the buffer's end, which a row's last piece
  // rounded up could cross: the last few bytes of a row that ends off a 16-byte boundary are not
  // asked for).
  const auto prefetch_l2 = [&](long long row) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    if (row >= rows || (lane != 0 && lane != ROW_THREADS - 1)) return;
    const T* p = (lane == 0 ? x : dy) + row * COLS;
    const unsigned long long from = reinterpret_cast<unsigned long long>(p) & ~15ull;
    const unsigned long long to = reinterpret_cast<unsigned long long>(p + COLS) & ~15ull;
    if (to > from) hopper_async::bulk_prefetch_l2(reinterpret_cast<const void*>(from), static_cast<unsigned>(to - from));
#endif
  };
  Row cur, next_row;
  if constexpr (STAGES > 0) load_stats(first_of_group), load_staged(first_of_group, cur);
  else load_row(first_of_group, cur);
#pragma unroll
  for (int ahead = PREFETCH + 1; ahead < L2_AHEAD; ++ahead) prefetch_l2(first_of_group + ahead * stride);
  // Every group goes round as often as the block's first, so the reductions' barriers match.
  for (long long first_row = (long long)blockIdx.x * GROUPS; first_row < rows; first_row += stride) {
    const long long row = first_row + group, next = row + stride;
    if constexpr (L2_AHEAD > 0) prefetch_l2(row + L2_AHEAD * stride);
    if (PREFETCH) load_row(next, next_row);
    const float mu = cur.mu, rs = cur.rs;
    float sum_gx = 0, sum_g = 0;
#pragma unroll
    for (int k = 0; k < PER; ++k) {
      float xv[V], dyv[V], wv[V];
      unpack<T, V>(cur.x[k], xv);
      unpack<T, V>(cur.dy[k], dyv);
      unpack<T, V>(w_raw[k], wv);
      float dw_now[V], db_now[V];  // the shared partials of this vector, G floats an access
      if constexpr (!REG_PARTIALS) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
          load_floats<G>(&dw_part[at(k, c * G, threadIdx.x)], &dw_now[c * G]);
          load_floats<G>(&db_part[at(k, c * G, threadIdx.x)], &db_now[c * G]);
        }
      }
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const float xhat = (xv[j] - mu) * rs, g = wv[j] * dyv[j];  // g is 0 past the row
        sum_gx += g * xhat;
        sum_g += g;
        if constexpr (REG_PARTIALS) {
          dw_reg[k][j] += dyv[j] * xhat;  // dy is 0 past the row
          db_reg[k][j] += dyv[j];
        } else {
          dw_now[j] += dyv[j] * xhat;
          db_now[j] += dyv[j];
        }
      }
      if constexpr (!REG_PARTIALS) {
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
          store_floats<G>(&dw_part[at(k, c * G, threadIdx.x)], &dw_now[c * G]);
          store_floats<G>(&db_part[at(k, c * G, threadIdx.x)], &db_now[c * G]);
        }
      }
    }
#pragma unroll
    for (int q = 0; q < LOOSE; ++q) {
      if constexpr (!SHIFTED) break;
      const float xhat = (cur.x_loose[q] - mu) * rs, g = w_loose[q] * cur.dy_loose[q];
      sum_gx += g * xhat;
      sum_g += g;
      dw_loose[q] += cur.dy_loose[q] * xhat;
      db_loose[q] += cur.dy_loose[q];
    }
    const float2 sums = group_sum_pair<ROW_THREADS, GROUPS>(make_float2(sum_gx, sum_g), scratch);
    if constexpr (STAGES > 0) {  // every thread has its copy of this row: its slot takes the row STAGES on
      if (threadIdx.x == 0) issue(turn + STAGES);
      ++turn;
    }
    // The means as products: a division by a row length that is no power of two is a
    // full-precision divide (a check and a slow path) on the row's critical path.
    constexpr float INV_COLS = 1.0f / COLS;
    const float c1 = sums.x * INV_COLS, c2 = sums.y * INV_COLS;
    if (row < rows) {
      T* dx_row = dx + row * COLS;
      R* dx_vecs = reinterpret_cast<R*>(dx_row + share.head);
#pragma unroll
      for (int k = 0; k < PER; ++k) {
        if (!held(k)) continue;
        float xv[V], dyv[V], wv[V], out[V];
        unpack<T, V>(cur.x[k], xv);
        unpack<T, V>(cur.dy[k], dyv);
        unpack<T, V>(w_raw[k], wv);
#pragma unroll
        for (int j = 0; j < V; ++j) out[j] = (wv[j] * dyv[j] - ((xv[j] - mu) * rs * c1 + c2)) * rs;
        dx_vecs[lane + k * ROW_THREADS] = pack<T, V, R>(out);
      }
#pragma unroll
      for (int q = 0; q < LOOSE; ++q) {
        if (!SHIFTED || !share.has_loose(q)) continue;
        const float xhat = (cur.x_loose[q] - mu) * rs;
        dx_row[share.loose_col(q)] = from_float<T>((w_loose[q] * cur.dy_loose[q] - (xhat * c1 + c2)) * rs);
      }
    }
    if constexpr (STAGES > 0) load_staged(next, cur);
    else if (!PREFETCH) load_row(next, cur);
    else cur = next_row;
  }

  // Stage 2: the block's partials summed by column, over the groups' slots (each group's split
  // maps a column to its slot: with shifted rows the groups' heads differ) and added into the
  // workspace four columns to an atomic.
  if constexpr (STAGES > 0) __syncthreads();  // no thread reads the ring any more: the slots take its place
  if constexpr (REG_PARTIALS) {  // into this thread's slots, where stage 2 reads them
#pragma unroll
    for (int k = 0; k < PER; ++k)
#pragma unroll
      for (int j = 0; j < V; ++j) {
        dw_part[at(k, j, threadIdx.x)] = dw_reg[k][j];
        db_part[at(k, j, threadIdx.x)] = db_reg[k][j];
      }
  }
  // Shifted rows: each group's split, and its loose columns' sums by loose index.
  __shared__ int2 splits[SHIFTED ? GROUPS : 1];
  __shared__ float2 loose_sums[SHIFTED ? GROUPS : 1][SHIFTED ? 2 * V : 1];
  if constexpr (SHIFTED) {
    if (lane == 0) splits[group] = make_int2(share.head, share.vecs);
#pragma unroll
    for (int q = 0; q < LOOSE; ++q)
      if (share.has_loose(q)) loose_sums[group][lane + q * ROW_THREADS] = make_float2(dw_loose[q], db_loose[q]);
  }
  __syncthreads();  // every slot written
  // Column c's sums: (dW, dB) of the whole block.
  const auto column_sums = [&](int c) -> float2 {
    float2 sum = make_float2(0, 0);
#pragma unroll
    for (int g = 0; g < GROUPS; ++g) {
      const int head = SHIFTED ? splits[g].x : 0, vecs = SHIFTED ? splits[g].y : VECS;
      const int v = c - head;  // columns of whole vectors from the group's head
      if (SHIFTED && (v < 0 || v >= vecs * V)) {
        const float2 loose = loose_sums[g][v < 0 ? c : head + (v - vecs * V)];  // GroupRow's loose order
        sum.x += loose.x;
        sum.y += loose.y;
        continue;
      }
      const int vec = v / V, j = v % V, k = vec / ROW_THREADS, owner = vec % ROW_THREADS;
      sum.x += dw_part[at(k, j, owner + g * ROW_THREADS)];
      sum.y += db_part[at(k, j, owner + g * ROW_THREADS)];
    }
    return sum;
  };
  // The atomics coalesced: a warp's 32 address 512 consecutive bytes, four columns to a float4
  // atomic (Hopper has vector atomics; the contention on the workspace grows with the blocks
  // times the columns, so four columns an atomic are a quarter of the operations). dB's half of
  // the workspace starts at DB_AT, rounded up to four columns, so that both halves stay 16-byte
  // aligned whatever the row length; the last COLS % 4 columns go one at a time, in the last
  // stripe.
  //
  // The columns come in STRIPES of a quad (four columns) a thread, each with its own arrival
  // counter: the block that adds a stripe last rounds that stripe into dW and dB, so the
  // kernel's tail is one stripe's L2 round trip in several blocks at once, not every column in
  // the one block that arrives last. A block adds all its stripes (each block starting at a
  // different one, so that they do not all add into the same columns at once), waits once for
  // its atomics to land, and then counts itself in at every stripe together.
  constexpr int DB_AT = (COLS + 3) / 4 * 4, WHOLE = COLS / 4 * 4, QUADS = WHOLE / 4;
  constexpr int STRIPES = QUADS > THREADS ? (QUADS + THREADS - 1) / THREADS : 1;
#pragma unroll 1
  for (int step = 0; step < STRIPES; ++step) {
    const int q = (blockIdx.x + step) % STRIPES * THREADS + threadIdx.x;
    if (q < QUADS) {
      float dw4[4], db4[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 sum = column_sums(4 * q + i);
        dw4[i] = sum.x, db4[i] = sum.y;
      }
      add_columns(acc + 4 * q, dw4);
      add_columns(acc + DB_AT + 4 * q, db4);
    }
  }
  for (int c = WHOLE + threadIdx.x; c < COLS; c += THREADS) {  // the last stripe's loose columns
    const float2 sum = column_sums(c);
    atomicAdd(&acc[c], sum.x);
    atomicAdd(&acc[DB_AT + c], sum.y);
  }
  __threadfence();  // this block's additions are visible before its arrivals are counted
  __syncthreads();
  __shared__ bool last[STRIPES];
  for (int stripe = threadIdx.x; stripe < STRIPES; stripe += THREADS)
    last[stripe] = atomicAdd(&arrivals[stripe], 1u) == gridDim.x - 1;
  __syncthreads();
  bool fenced = false;
#pragma unroll 1
  for (int stripe = 0; stripe < STRIPES; ++stripe) {
    if (!last[stripe]) continue;
    if (!fenced) __threadfence();  // every other block's additions before this one reads them
    fenced = true;
    const int q = stripe * THREADS + threadIdx.x;
    if (q < QUADS) {  // from L2 (ld.cg: the atomics are there, not in this SM's L1)
      const float4 sw = __ldcg(reinterpret_cast<const float4*>(acc) + q);
      const float4 sb = __ldcg(reinterpret_cast<const float4*>(acc + DB_AT) + q);
      const float w4[4] = {sw.x, sw.y, sw.z, sw.w}, b4[4] = {sb.x, sb.y, sb.z, sb.w};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        dw[4 * q + i] = from_float<T>(w4[i]);
        db[4 * q + i] = from_float<T>(b4[i]);
      }
      const float4 zero = make_float4(0, 0, 0, 0);
      __stcg(reinterpret_cast<float4*>(acc) + q, zero);
      __stcg(reinterpret_cast<float4*>(acc + DB_AT) + q, zero);
    }
    if (stripe == STRIPES - 1) {
      for (int c = WHOLE + threadIdx.x; c < COLS; c += THREADS) {
        dw[c] = from_float<T>(__ldcg(acc + c));
        db[c] = from_float<T>(__ldcg(acc + DB_AT + c));
        acc[c] = 0;
        acc[DB_AT + c] = 0;
      }
    }
    if (threadIdx.x == 0) arrivals[stripe] = 0;  // zero for the next launch
  }
}
