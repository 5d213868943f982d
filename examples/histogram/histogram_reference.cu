// The reference for histogram: one global atomic per id. Slow and plainly right; counts arrives
// zeroed like the candidates'.
__global__ void histogram_reference(const int* ids, int* counts, long long n, int bins) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    if (ids[i] >= 0 && ids[i] < bins) atomicAdd(&counts[ids[i]], 1);
}
