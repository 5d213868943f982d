// nvfp4.cuh — NVFP4 weights decoded exactly into 16-bit tensor-core operands, shared by the
// kernels that read them (gemv_nvfp4.cu for decode, gemm_nvfp4_wgmma.cu for prefill).
//
// W is N rows of K e2m1 values (two a byte, element 2i in bits 0-3 of byte i), each group of 16
// along K with an e4m3 scale, and one fp32 tensor scale (docs/formats.md). A nibble's magnitude
// bits go where they make the 16-bit pattern e2m1 * 2^-BIAS (T's exponent bias minus one: 0.5
// becomes a subnormal, only the top mantissa bit set; the other magnitudes are normal), and one
// multiply by the group scale times 2^SCALE_EXP gives e2m1 * scale * 2^(SCALE_EXP - BIAS): a
// product of at most 6 significant bits (1.5 x 1.875 = 10.1101b), in range, so exact. The
// remaining 2^(BIAS - SCALE_EXP) and the tensor scale are applied to the fp32 sums
// (EPILOGUE_FACTOR).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace nvfp4 {

// Where T puts a nibble's magnitude bits, and the powers of two around the multiply (above).
template <typename T>
struct Dequant;

template <>
struct Dequant<__nv_bfloat16> {
  static constexpr int MAG_AT = 6;                     // exponent bits 8-7, mantissa bit 6: e2m1 * 2^-126
  static constexpr unsigned MAG_MASK = 0x01C001C0u;
  static constexpr float SCALE_FACTOR = 0x1p118f;      // 448 * 2^118 < 2^128, bf16's range
  static constexpr float EPILOGUE_FACTOR = 0x1p8f;     // 2^(126 - 118)
  static __device__ __forceinline__ unsigned scale_pair(float s) {
    const __nv_bfloat162 v = __float2bfloat162_rn(s * SCALE_FACTOR);
    return *reinterpret_cast<const unsigned*>(&v);
  }
  // x * s exactly (the product fits bf16): fma with -0, as bf16 multiplies are written on sm_80.
  static __device__ __forceinline__ unsigned mul(unsigned x, unsigned s) {
    unsigned d;
    asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(x), "r"(s), "r"(0x80008000u));
    return d;
  }
};

template <>
struct Dequant<__half> {
  static constexpr int MAG_AT = 9;                     // exponent bits 11-10, mantissa bit 9: e2m1 * 2^-14
  static constexpr unsigned MAG_MASK = 0x0E000E00u;
  static constexpr float SCALE_FACTOR = 0x1p7f;        // 448 * 2^7 < 65504, fp16's largest
  static constexpr float EPILOGUE_FACTOR = 0x1p7f;     // 2^(14 - 7)
  static __device__ __forceinline__ unsigned scale_pair(float s) {
    const __half2 v = __float2half2_rn(s * SCALE_FACTOR);
    return *reinterpret_cast<const unsigned*>(&v);
  }
  static __device__ __forceinline__ unsigned mul(unsigned x, unsigned s) {
    unsigned d;
    asm("mul.rn.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(x), "r"(s));
    return d;
  }
};

// Elements I and I+4 of the 8 nibbles in w, as a pair of T patterns e2m1 * 2^-BIAS (low half:
// element I). Two shifts and a masked merge.
template <typename T, int I>
__device__ __forceinline__ unsigned decode_pair(unsigned w) {
  constexpr int mag_shift = Dequant<T>::MAG_AT - 4 * I;
  const unsigned mag = mag_shift >= 0 ? w << mag_shift : w >> -mag_shift;
  const unsigned sign = w << (12 - 4 * I);  // nibble bit 3 to bit 15 (and 19 to 31)
  return (mag & Dequant<T>::MAG_MASK) | (sign & 0x80008000u);
}

// The two e4m3 group scales in the low 16 bits of `bytes`, as floats.
__device__ __forceinline__ float2 e4m3_pair(unsigned bytes) {
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(bytes), __NV_E4M3);
  return __half22float2(*reinterpret_cast<const __half2*>(&h));
}

}  // namespace nvfp4
