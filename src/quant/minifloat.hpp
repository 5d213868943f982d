// The 8- and 4-bit floating-point element types of block-scaled formats, one value at a time on
// the host: e4m3 (OCP FP8 E4M3FN: sign, 4 exponent bits with bias 7, 3 mantissa bits; largest
// finite 448, no infinities, 0x7f and 0xff are NaN) and e2m1 (OCP FP4: sign, 2 exponent bits with
// bias 1, 1 mantissa bit; magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6). Encoding rounds to nearest, ties
// to even, and saturates to the largest finite magnitude, as the GPU's cvt.rn.satfinite does;
// the conversions are the CUDA toolkit's own (cuda_fp8.h, cuda_fp4.h), so host and device agree.
#pragma once

#include <cstdint>

namespace ktune::quant {

uint8_t e4m3_encode(float x);
float e4m3_decode(uint8_t bits);
uint8_t e2m1_encode(float x);  // the low 4 bits
float e2m1_decode(uint8_t bits);  // reads the low 4 bits

inline constexpr float kE4m3Max = 448.0f;
inline constexpr float kE2m1Max = 6.0f;

}  // namespace ktune::quant
