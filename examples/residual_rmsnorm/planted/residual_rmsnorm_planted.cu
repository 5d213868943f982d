// PLANTED FAULTS, for checking that ktune rejects wrong kernels: residual_rmsnorm.cu with PLANT.
//   PLANT 0  the correct kernel
//   PLANT 1  off by one: the mean of squares divided by hidden - 1
//   PLANT 2  a wrong element: sum written as x alone, the residual left out of that output
//   PLANT 3  writes its input: the sum stored over residual as well (an in-place habit)
//   PLANT 4  off by one vector: the last vector of each row never written
//
// Fused residual add + RMSNorm, one row of `hidden` elements per block, the row held in registers:
//   sum = T(x + residual)                              (the new residual stream, written out)
//   y   = T(sum * rsqrt(mean(sum^2) + eps) * weight)   (the normalized tensor)
// Math in fp32 from the rounded sum, as a model that stores the residual in T computes it.
//
// Each of BLOCK threads holds ITEMS vectors of VEC elements: BLOCK * VEC * ITEMS covers the row.
// Tunables: VEC (elements per vector load), BLOCK, ITEMS (so that one block covers the row).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace residual_rmsnorm_planted_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

// The sum of `v` over the block, in every thread.
template <int BLOCK>
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[BLOCK / 32];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (BLOCK == 32) return v;
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = 0;
#pragma unroll
  for (int w = 0; w < BLOCK / 32; ++w) v += warp_sums[w];
  return v;
}

}  // namespace residual_rmsnorm_planted_detail

template <typename T, int VEC, int BLOCK, int ITEMS, int PLANT>
__global__ void __launch_bounds__(BLOCK)
    residual_rmsnorm_planted(const T* __restrict__ x, const T* __restrict__ residual, const T* __restrict__ weight,
                     T* __restrict__ sum, T* __restrict__ y, int rows, int hidden, float eps) {
  using namespace residual_rmsnorm_planted_detail;
  using P = Pack<T, VEC>;
  const long long row = blockIdx.x;
  const T* xr = x + row * hidden;
  const T* rr = residual + row * hidden;
  P s[ITEMS];
  float squares = 0;
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int col = (it * BLOCK + threadIdx.x) * VEC;
    if (col >= hidden) break;
    const P a = *reinterpret_cast<const P*>(xr + col), b = *reinterpret_cast<const P*>(rr + col);
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      s[it].v[i] = from_float<T>(to_float(a.v[i]) + to_float(b.v[i]));
      const float f = to_float(s[it].v[i]);
      squares += f * f;
    }
    if (PLANT == 4 && col + VEC >= hidden) continue;
    *reinterpret_cast<P*>(sum + row * hidden + col) = PLANT == 2 ? a : s[it];
    if (PLANT == 3) *reinterpret_cast<P*>(const_cast<T*>(rr) + col) = s[it];
  }
  const float rstd = rsqrtf(block_sum<BLOCK>(squares) / (PLANT == 1 ? hidden - 1 : hidden) + eps);
#pragma unroll
  for (int it = 0; it < ITEMS; ++it) {
    const int col = (it * BLOCK + threadIdx.x) * VEC;
    if (col >= hidden || (PLANT == 4 && col + VEC >= hidden)) break;
    const P w = *reinterpret_cast<const P*>(weight + col);
    P out;
#pragma unroll
    for (int i = 0; i < VEC; ++i) out.v[i] = from_float<T>(to_float(s[it].v[i]) * rstd * to_float(w.v[i]));
    *reinterpret_cast<P*>(y + row * hidden + col) = out;
  }
}
