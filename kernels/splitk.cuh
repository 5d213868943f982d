// splitk.cuh — split-K's reduction, shared by the gemm kernels that split K over the blocks of a
// tile (gemm_mma, gemv, gemv_dot). Each block writes its fp32 partial sums to the workspace; the
// last block of the tile to arrive adds them up in split order — the same sum whatever the
// arrival order — writes C and resets the tile's counter for the next launch.
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

// Adds the partials of `count` outputs: output i's sum for split s lies at partials[s * stride +
// off], where offset(i, off) sets off and says whether output i exists; store(i, sum) writes it.
// A thread takes CHUNK outputs at a time and reads each split's values of all of them before
// adding: a loop over the splits of one output at a time waits for L2 once per split, which at 32
// splits cost more than the blocks' whole K slices.
template <int THREADS, typename Offset, typename Store>
__device__ __forceinline__ void sum_partials(const float* __restrict__ partials, long long stride, int splits,
                                             int count, Offset offset, Store store) {
  constexpr int CHUNK = 8;
  for (int base = threadIdx.x; base < count; base += CHUNK * THREADS) {
    long long off[CHUNK];
    bool ok[CHUNK];
    float sum[CHUNK];
#pragma unroll
    for (int c = 0; c < CHUNK; ++c) {
      const int i = base + c * THREADS;
      off[c] = 0;
      ok[c] = i < count && offset(i, off[c]);
      sum[c] = 0.f;
    }
#pragma unroll 4
    for (int s = 0; s < splits; ++s)
#pragma unroll
      for (int c = 0; c < CHUNK; ++c)
        if (ok[c]) sum[c] += __ldcg(partials + s * stride + off[c]);  // L2: not this SM's L1
#pragma unroll
    for (int c = 0; c < CHUNK; ++c)
      if (ok[c]) store(base + c * THREADS, sum[c]);
  }
}

}  // namespace splitk
