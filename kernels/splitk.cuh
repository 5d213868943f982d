// splitk.cuh — split-K's reduction, shared by the gemm kernels that split K over the blocks of a
// tile (gemm_mma, gemv, gemv_dot). Each block writes its fp32 partial sums to the workspace; the
// splits are then added in groups of SPLIT_GROUP (reduce_splits): the last block of a group to
// arrive adds its group's partials, the last group to finish adds the group sums and writes C,
// each in a fixed order — the same sum whatever the arrival order — and the counters are left
// zero for the next launch.
#pragma once

namespace splitk {

// Called by every thread of a block once its partials are written: true in the block that
// arrives last at `counter` (of `splits`), which then sees every other block's partials.
__device__ __forceinline__ bool last_to_arrive(unsigned* counter, unsigned splits) {
  __shared__ bool last;
  __threadfence();  // this block's partials are visible device-wide before its arrival counts
  __syncthreads();
  if (threadIdx.x == 0) last = atomicAdd(counter, 1u) == splits - 1;
  __syncthreads();
  if (last) __threadfence();  // see every other block's partials
  return last;
}

// Splits per group. One block adding all 32 splits of a tile waited for L2 eight times at the end
// of the kernel while the other blocks were done (ncu on the H100 at 64x64x32768: 20% of the SMs'
// active cycles out of balance); in groups of 8 the same sums take two waits in each of four
// blocks at once, then one in the last, plus one more arrival.
constexpr int SPLIT_GROUP = 8;

// Adds the partials of COUNT outputs: output i's sum for split s lies at partials[s * stride +
// off], where offset(i, off) sets off (less than stride) and says whether output i exists;
// store(i, sum) writes it. A thread takes CHUNK of its outputs at a time and unrolls the splits by
// DEPTH, so that up to CHUNK * DEPTH loads can be in flight: a loop over the splits of one output
// at a time waits for L2 once per split, which at 32 splits cost more than the blocks' K slices.
// Offsets are ints: the configs bound SPLIT_K * stride * 4 bytes by splitk_partial_bytes (48 MiB).
// CHUNK is no more than the tile gives a thread: the registers held here count for the whole
// kernel, and a GEMV block of 128 threads holding 8 outputs it did not have took 72 registers
// instead of 64, 7 blocks to an SM instead of 8, and a second wave at 1x4096x4096.
template <int THREADS, int COUNT, typename Offset, typename Store>
__device__ __forceinline__ void sum_partials(const float* __restrict__ partials, long long stride, int splits,
                                             Offset offset, Store store) {
  constexpr int PER_THREAD = (COUNT + THREADS - 1) / THREADS;
  constexpr int CHUNK = PER_THREAD < 8 ? PER_THREAD : 8;
  constexpr int DEPTH = 32 / CHUNK < SPLIT_GROUP ? 32 / CHUNK : SPLIT_GROUP;
  for (int base = threadIdx.x; base < COUNT; base += CHUNK * THREADS) {
    int off[CHUNK];  // within one split's outputs (a split-K workspace is far below 2^31 floats); -1: none
    float sum[CHUNK];
#pragma unroll
    for (int c = 0; c < CHUNK; ++c) {
      const int i = base + c * THREADS;
      long long o = 0;
      off[c] = i < COUNT && offset(i, o) ? (int)o : -1;
      sum[c] = 0.f;
    }
#pragma unroll DEPTH
    for (int s = 0; s < splits; ++s)
#pragma unroll
      for (int c = 0; c < CHUNK; ++c)
        if (off[c] >= 0) sum[c] += __ldcg(partials + s * stride + off[c]);  // L2: not this SM's L1
#pragma unroll
    for (int c = 0; c < CHUNK; ++c)
      if (off[c] >= 0) store(base + c * THREADS, sum[c]);
  }
}

// Counters a tile needs: its own, and one per group when there is more than one.
__host__ __device__ constexpr int counters_per_tile(int splits) {
  return splits > SPLIT_GROUP ? 1 + (splits + SPLIT_GROUP - 1) / SPLIT_GROUP : 1;
}

// The reduction of one tile's splits, called by every thread of each of its blocks once the
// block's partials for split `split` are written. partials, stride, COUNT, offset and store as
// sum_partials'. The tile's counters are counters[0] (the tile's) and, with more than one group,
// counters[1 + g] (group g's), all zero at launch and left zero. A group's sum goes to the slot
// of its first split (its last block has read that slot's values by then: each output is one
// thread's), so the workspace is the partials' own.
template <int THREADS, int COUNT, typename Offset, typename Store>
__device__ __forceinline__ void reduce_splits(float* __restrict__ partials, long long stride, int splits, int split,
                                              unsigned* counters, Offset offset, Store store) {
  const int groups = (splits + SPLIT_GROUP - 1) / SPLIT_GROUP;
  if (groups == 1) {
    if (!last_to_arrive(counters, splits)) return;
    sum_partials<THREADS, COUNT>(partials, stride, splits, offset, store);
  } else {
    const int g = split / SPLIT_GROUP, first = g * SPLIT_GROUP;
    const int size = splits - first < SPLIT_GROUP ? splits - first : SPLIT_GROUP;
    if (!last_to_arrive(counters + 1 + g, size)) return;
    float* const group_slot = partials + first * stride;
    sum_partials<THREADS, COUNT>(group_slot, stride, size, offset, [&](int i, float sum) {
      long long off = 0;
      offset(i, off);
      __stcg(group_slot + off, sum);
    });
    if (threadIdx.x == 0) counters[1 + g] = 0u;
    if (!last_to_arrive(counters, groups)) return;
    sum_partials<THREADS, COUNT>(partials, SPLIT_GROUP * stride, groups, offset, store);
  }
  if (threadIdx.x == 0) counters[0] = 0u;  // ready for the next launch
}

}  // namespace splitk
