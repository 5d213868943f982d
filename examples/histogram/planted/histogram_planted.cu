// PLANTED FAULTS, for checking that ktune rejects wrong kernels: histogram.cu with PLANT.
//   PLANT 0  the correct kernel
//   PLANT 1  off by one: the last id never counted
//   PLANT 2  a wrong element: each id counted in the next bin (the last bin's in bin 0)
//   PLANT 3  writes its input: each vector of ids zeroed once counted
//   PLANT 4  a race: the shared counts incremented without atomics
//
// bincount: counts[b] = how many of ids[0..n) equal b, for ids in [0, bins) (token ids per vocabulary
// entry, tokens per expert in a mixture-of-experts router). counts arrives zeroed (the declaration
// says "zeroed") and blocks add into it with atomics, so any order gives the same exact counts.
//
// Each block counts its share of ids into COPIES copies of the histogram in shared memory (warps
// spread over the copies, fewer collisions on frequent ids), then adds its non-zero bins to
// counts. Tunables: VEC (ids per vector load), BLOCK, BLOCKS_PER_SM (the grid), COPIES.
template <int VEC, int BLOCK, int COPIES, int PLANT>
__device__ __forceinline__ void planted_count(int* mine, int id, int bins) {
  if (PLANT == 2) id = (id + 1) % bins;
  if (PLANT == 4)
    mine[id] += 1;
  else
    atomicAdd(&mine[id], 1);
}

template <int VEC, int BLOCK, int COPIES, int PLANT>
__global__ void __launch_bounds__(BLOCK)
    histogram_planted(const int* __restrict__ ids, int* __restrict__ counts, long long n, int bins) {
  extern __shared__ int shared_counts[];  // COPIES x bins
  for (int i = threadIdx.x; i < COPIES * bins; i += BLOCK) shared_counts[i] = 0;
  __syncthreads();
  int* mine = shared_counts + (threadIdx.x / 32 % COPIES) * bins;
  const long long vectors = (n - (PLANT == 1 ? 1 : 0)) / VEC;
  const long long stride = (long long)gridDim.x * BLOCK;
  for (long long v = blockIdx.x * (long long)BLOCK + threadIdx.x; v < vectors; v += stride) {
    if (VEC == 4) {
      const int4 q = reinterpret_cast<const int4*>(ids)[v];
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.x, bins);
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.y, bins);
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.z, bins);
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.w, bins);
      if (PLANT == 3) reinterpret_cast<int4*>(const_cast<int*>(ids))[v] = make_int4(0, 0, 0, 0);
    } else if (VEC == 2) {
      const int2 q = reinterpret_cast<const int2*>(ids)[v];
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.x, bins);
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, q.y, bins);
      if (PLANT == 3) reinterpret_cast<int2*>(const_cast<int*>(ids))[v] = make_int2(0, 0);
    } else {
      planted_count<VEC, BLOCK, COPIES, PLANT>(mine, ids[v], bins);
      if (PLANT == 3) const_cast<int*>(ids)[v] = 0;
    }
  }
  // The last n % VEC ids, by the first block.
  if (blockIdx.x == 0)
    for (long long i = vectors * VEC + threadIdx.x; i < n - (PLANT == 1 ? 1 : 0); i += BLOCK) planted_count<VEC, BLOCK, COPIES, PLANT>(mine, ids[i], bins);
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += BLOCK) {
    int total = 0;
#pragma unroll
    for (int c = 0; c < COPIES; ++c) total += shared_counts[c * bins + b];
    if (total) atomicAdd(&counts[b], total);
  }
}
