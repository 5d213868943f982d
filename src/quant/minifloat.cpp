#include "quant/minifloat.hpp"

#include <cuda_fp4.h>
#include <cuda_fp8.h>

namespace ktune::quant {

uint8_t e4m3_encode(float x) { return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3); }

float e4m3_decode(uint8_t bits) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(bits, __NV_E4M3);
  return __half2float(__half(h));
}

uint8_t e2m1_encode(float x) { return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest) & 0xf; }

float e2m1_decode(uint8_t bits) {
  const __half_raw h = __nv_cvt_fp4_to_halfraw(static_cast<__nv_fp4_storage_t>(bits & 0xf), __NV_E2M1);
  return __half2float(__half(h));
}

}  // namespace ktune::quant
