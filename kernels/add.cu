// add.cu — C = A + B, elementwise, for n elements of T (float, __half or __nv_bfloat16): the
// first kernel of every CUDA course, and a pure stream: 2 reads and 1 write per element, so it is
// judged by how close it gets to the copy roof. The sum is taken in fp32 and rounded once.
//
// Launch: BLOCK threads; grid cdiv(cdiv(n, V), BLOCK * ITEMS) blocks, or with GRID_STRIDE a fixed
// number of blocks (BLOCKS_PER_SM per SM) that stride over the array. V = VEC_BYTES / sizeof(T)
// elements move per load. The last n % V elements are done one at a time by the first threads.
//
// Tunables:
//   VEC_BYTES     bytes per load and store (4, 8, 16): 16 makes the fewest, widest transactions.
//   ITEMS         vectors per thread per step, all loaded before any is stored: bytes in flight.
//   BLOCK         threads per block.
//   GRID_STRIDE   0: one step per block, as many blocks as steps; 1: a persistent grid.
//   STREAMING     1: loads and stores with the evict-first hint (ld.global.cs / st.global.cs),
//                 since nothing is read twice.
#include "elementwise.cuh"

namespace add_detail {

using namespace elementwise;

// The elementwise sum of two vectors of V elements held as raw bits.
template <typename T, typename R>
__device__ __forceinline__ R add(R a, R b) {
  constexpr int V = sizeof(R) / sizeof(T);
  const T* x = reinterpret_cast<const T*>(&a);
  const T* y = reinterpret_cast<const T*>(&b);
  R out;
  T* z = reinterpret_cast<T*>(&out);
#pragma unroll
  for (int i = 0; i < V; ++i) z[i] = from_float<T>(to_float(x[i]) + to_float(y[i]));
  return out;
}

}  // namespace add_detail

template <typename T, int VEC_BYTES, int ITEMS, int BLOCK, int GRID_STRIDE, int STREAMING>
__global__ void __launch_bounds__(BLOCK) ktune_add(const T* __restrict__ a, const T* __restrict__ b,
                                                   T* __restrict__ c, long long n) {
  using namespace add_detail;
  using R = typename Raw<VEC_BYTES>::type;
  constexpr int V = VEC_BYTES / sizeof(T);
  static_assert(V >= 1 && VEC_BYTES % sizeof(T) == 0, "a vector holds whole elements");
  const long long vectors = n / V;
  const R* av = reinterpret_cast<const R*>(a);
  const R* bv = reinterpret_cast<const R*>(b);
  R* cv = reinterpret_cast<R*>(c);
  constexpr long long kStep = (long long)BLOCK * ITEMS;  // vectors per block per step
  const long long stride = GRID_STRIDE ? (long long)gridDim.x * kStep : vectors;
  for (long long base = blockIdx.x * kStep; base < vectors; base += stride) {
    R ra[ITEMS], rb[ITEMS];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long v = base + (long long)i * BLOCK + threadIdx.x;
      if (v < vectors) {
        ra[i] = load_vec<STREAMING>(av + v);
        rb[i] = load_vec<STREAMING>(bv + v);
      }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long v = base + (long long)i * BLOCK + threadIdx.x;
      if (v < vectors) store_vec<STREAMING>(cv + v, add<T>(ra[i], rb[i]));
    }
  }
  // The tail: fewer than V elements, one per thread of the first block.
  const long long t = vectors * V + threadIdx.x;
  if (blockIdx.x == 0 && t < n) c[t] = from_float<T>(to_float(a[t]) + to_float(b[t]));
}
