// What the memory-bound kernels share: raw vector types by byte width (loads and stores move bits;
// the elements are unpacked in registers) and conversions between the stored type and fp32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace elementwise {

template <int BYTES> struct Raw;
template <> struct Raw<2> { using type = unsigned short; };
template <> struct Raw<4> { using type = unsigned; };
template <> struct Raw<8> { using type = uint2; };
template <> struct Raw<16> { using type = uint4; };

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// The V elements of T in a raw vector as fp32, and back (rounded to nearest).
template <typename T, int V, typename R>
__device__ __forceinline__ void unpack(R raw, float* out) {
  const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < V; ++i) out[i] = to_float(e[i]);
}
template <typename T, int V, typename R>
__device__ __forceinline__ R pack(const float* in) {
  R raw;
  T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int i = 0; i < V; ++i) e[i] = from_float<T>(in[i]);
  return raw;
}

}  // namespace elementwise
