// bincount: counts[b] = how many of ids[0..n) equal b, for ids in [0, bins) (token ids per vocabulary
// entry, tokens per expert in a mixture-of-experts router). counts arrives zeroed (the declaration
// says "zeroed") and blocks add into it with atomics, so any order gives the same exact counts.
//
// Each block counts its share of ids into COPIES copies of the histogram in shared memory (warps
// spread over the copies, fewer collisions on frequent ids), then adds its non-zero bins to
// counts. Tunables: VEC (ids per vector load), BLOCK, BLOCKS_PER_SM (the grid), COPIES.
template <int VEC, int BLOCK, int COPIES>
__global__ void __launch_bounds__(BLOCK)
    histogram(const int* __restrict__ ids, int* __restrict__ counts, long long n, int bins) {
  extern __shared__ int shared_counts[];  // COPIES x bins
  for (int i = threadIdx.x; i < COPIES * bins; i += BLOCK) shared_counts[i] = 0;
  __syncthreads();
  int* mine = shared_counts + (threadIdx.x / 32 % COPIES) * bins;
  const long long vectors = n / VEC;
  const long long stride = (long long)gridDim.x * BLOCK;
  for (long long v = blockIdx.x * (long long)BLOCK + threadIdx.x; v < vectors; v += stride) {
    if (VEC == 4) {
      const int4 q = reinterpret_cast<const int4*>(ids)[v];
      atomicAdd(&mine[q.x], 1);
      atomicAdd(&mine[q.y], 1);
      atomicAdd(&mine[q.z], 1);
      atomicAdd(&mine[q.w], 1);
    } else if (VEC == 2) {
      const int2 q = reinterpret_cast<const int2*>(ids)[v];
      atomicAdd(&mine[q.x], 1);
      atomicAdd(&mine[q.y], 1);
    } else {
      atomicAdd(&mine[ids[v]], 1);
    }
  }
  // The last n % VEC ids, by the first block.
  if (blockIdx.x == 0)
    for (long long i = vectors * VEC + threadIdx.x; i < n; i += BLOCK) atomicAdd(&mine[ids[i]], 1);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += BLOCK) {
    int total = 0;
#pragma unroll
    for (int c = 0; c < COPIES; ++c) total += shared_counts[c * bins + b];
    if (total) atomicAdd(&counts[b], total);
  }
}
