// PLANTED FAULTS, for checking that ktune rejects wrong kernels: residual_rmsnorm.cu with PLANT.
//   PLANT 0  the correct kernel
//   PLANT 1  off by one: each element scaled by its right neighbour's weight (the last by its own)
//   PLANT 2  a wrong element: sum written as x alone, the residual left out of that output
//   PLANT 3  writes its input: the sum stored over residual as well (an in-place habit)
//   PLANT 4  off by one vector: the last vector of each row never written
//
// Fused residual add + RMSNorm over rows of `hidden` elements, each row held in registers:
//   sum = T(x + residual)                              (the new residual stream, written out)
//   y   = T(sum * rsqrt(mean(sum^2) + eps) * weight)   (the normalized tensor)
// Math in fp32 from the rounded sum, as a model that stores the residual in T computes it.
//
// A block of BLOCK threads holds ROWS rows, BLOCK / ROWS threads a row (a warp or more), each
// thread ITEMS vectors of VEC elements of it. Tunables: VEC, BLOCK, ITEMS, ROWS (a row per warp
// leaves no partial last wave of blocks at large row counts), STREAMING (x, residual, sum and y
// are touched once: load and store them with the evict-first hint, so that they do not push the
// weight, which every row reads, out of L2).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace residual_rmsnorm_planted_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

template <int BYTES> struct Raw;
template <> struct Raw<16> { using type = uint4; };
template <> struct Raw<8> { using type = uint2; };
template <> struct Raw<4> { using type = unsigned; };

template <typename T, int N>
union Pack {
  T v[N];
  typename Raw<sizeof(T) * N>::type raw;
};

template <int STREAMING, typename P>
__device__ __forceinline__ P load(const P* p) {
  P out;
  out.raw = STREAMING ? __ldcs(&p->raw) : p->raw;
  return out;
}
template <int STREAMING, typename P>
__device__ __forceinline__ void store(P* p, const P& v) {
  if (STREAMING)
    __stcs(&p->raw, v.raw);
  else
    p->raw = v.raw;
}

}  // namespace residual_rmsnorm_planted_detail

template <typename T, int VEC, int BLOCK, int ITEMS, int ROWS, int STREAMING, int PLANT>
__global__ void __launch_bounds__(BLOCK)
    residual_rmsnorm_planted(const T* __restrict__ x, const T* __restrict__ residual, const T* __restrict__ weight,
                     T* __restrict__ sum, T* __restrict__ y, int rows, int hidden, float eps) {
  using namespace residual_rmsnorm_planted_detail;
  using P = Pack<T, VEC>;
  constexpr int TPR = BLOCK / ROWS;  // threads a row
  constexpr int WARPS = TPR / 32;    // warps a row
  __shared__ float warp_sums[ROWS][WARPS];
  const int group = threadIdx.x / TPR, t = threadIdx.x % TPR;
  const long long row = (long long)blockIdx.x * ROWS + group;
  const bool live = row < rows;  // every thread reaches the barrier below
  const long long base = row * hidden;
  P s[ITEMS];
  float squares = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int col = (it * TPR + t) * VEC;
    if (!live || col >= hidden) break;
    const P a = load<STREAMING>(reinterpret_cast<const P*>(x + base + col));
    const P b = load<STREAMING>(reinterpret_cast<const P*>(residual + base + col));
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      s[it].v[i] = from_float<T>(to_float(a.v[i]) + to_float(b.v[i]));
      const float f = to_float(s[it].v[i]);
      squares += f * f;
    }
    if (PLANT == 4 && col + VEC >= hidden) continue;
    store<STREAMING>(reinterpret_cast<P*>(sum + base + col), PLANT == 2 ? a : s[it]);
    if (PLANT == 3) store<STREAMING>(reinterpret_cast<P*>(const_cast<T*>(residual) + base + col), s[it]);
  }
  for (int o = 16; o > 0; o >>= 1) squares += __shfl_xor_sync(0xffffffffu, squares, o);
  if (WARPS > 1) {
    if (t % 32 == 0) warp_sums[group][t / 32] = squares;
    __syncthreads();
    squares = 0;
#pragma unroll
    for (int w = 0; w < WARPS; ++w) squares += warp_sums[group][w];
  }
  const float rstd = rsqrtf(squares / hidden + eps);
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int col = (it * TPR + t) * VEC;
    if (!live || col >= hidden || (PLANT == 4 && col + VEC >= hidden)) break;
    const P w = *reinterpret_cast<const P*>(weight + col);
    P out;
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float wi = PLANT == 1 ? to_float(weight[min(col + i + 1, hidden - 1)]) : to_float(w.v[i]);
      out.v[i] = from_float<T>(to_float(s[it].v[i]) * rstd * wi);
    }
    store<STREAMING>(reinterpret_cast<P*>(y + base + col), out);
  }
}
