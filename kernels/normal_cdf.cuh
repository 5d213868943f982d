// normal_cdf.cuh — Phi(z) = P(N(0, 1) <= z) = 0.5 * (1 + erf(z / sqrt 2)) in fp32, the factor exact
// GELU multiplies z by, for kernels (NVRTC) and for the host tests that bound its error (so both
// compile this one text).
//
// Why not 0.5f * (1.0f + erff(z * M_SQRT1_2)): erff picks its polynomial's coefficients with
// selects and branches around its exp2 (about 25 SASS instructions an element on sm_90, more than
// half of what bias_gelu_dropout can spend on an element of a 16-bit type), and 1 + erf cancels
// for negative z, where only erf's absolute error is left: 0.5 * (1 + erff(u)) is off by up to
// ~140 ulp for z in [-3, -2] and by 100% near z = -5.5. Here, with a = |z| and h = Phi(-a) = 0.5 * erfc(a / sqrt 2), the one tail
//
//   h = 2^q(a),  q(a) = log2 Phi(-a) = -1 + a * P(a),  P a degree-10 polynomial on [0, 5.5]
//   Phi(z) = z < 0 ? h : 1 - h
//
// is computed for both signs: no select of coefficients, no branch, and no cancellation (h is
// relative-accurate, and 1 - h never loses more than the rounding of a number in [0.5, 1]).
// Eleven FMAs, one exp2 and four selects or adds: about 17 instructions.
//
// Accuracy, as maxima over every float z in [-5.5, 5.5] (a one-off run; the C library's exp2f
// standing in for the SFU's ex2.approx, which may add about one ulp for z >= 0 and two ulp of h
// for z < 0): for z >= 0 within 1.21 ulp of Phi (and so of 1 + erf); for z < 0 the relative
// error grows with |z| as the rounding of the exponent q does: 2.9, 8.2, 14, 18 and 43 ulp of Phi
// for |z| below 1, 2, 3, 4 and 5.5, where erff's form (with a 1-ulp erff) is off by 2.3, 14.5,
// 141, 4111 and 6e6 ulp. tests/host/test_normal_cdf.cpp checks the same bands every 1e-4 over
// [-6, 6] against erf / erfc in double. Past a = 5.5, Phi(-a) < 2^-25: Phi(a) rounds to 1, and
// Phi(-a) is returned as 0, which is also what 1 + erff(u) gives there (u < -3.9).
//
// P was fitted (near-minimax, Chebyshev) to (q(a) + 1) / a in 40-digit arithmetic and its
// coefficients rounded to fp32 from the highest degree down, the lower ones refitted after each:
// scripts/fit_normal_cdf.py prints them.
#pragma once

#if !defined(__CUDACC_RTC__)
#include <cmath>
#endif
#if defined(__CUDACC__)
#include "fast_exp2.cuh"
#define KTUNE_NORMAL_CDF_FN __host__ __device__ __forceinline__
#else
#define KTUNE_NORMAL_CDF_FN inline
#endif

namespace normal_cdf {

// Past this a, Phi(-a) < 2^-25: Phi(a) is 1 in fp32, and Phi(-a) is taken as 0.
constexpr float kTailEnd = 5.5f;

// 2^x: the SFU's approximation on the device (ex2.approx.ftz, subnormal results flushed: only
// beyond a = 13, which kTailEnd cuts off first), the C library's on the host.
KTUNE_NORMAL_CDF_FN float exp2_approx(float x) {
#if defined(__CUDA_ARCH__)
  return fast_exp2(x);
#else
  return std::exp2(x);
#endif
}

// log2 Phi(-a) for a in [0, kTailEnd]: -1 + a * P(a), Horner from the highest degree.
KTUNE_NORMAL_CDF_FN float log2_lower_tail(float a) {
  constexpr float kP[] = {3.454148523e-09f,  -1.207742457e-07f, 1.887372377e-06f,  -1.725356196e-05f,
                          9.931247769e-05f,  -3.301671240e-04f, 6.661422958e-05f,  6.897342857e-03f,
                          -5.242281780e-02f, -4.592234194e-01f, -1.151104093e+00f};
  float p = kP[0];
  for (int k = 1; k < 11; ++k) p = fmaf(p, a, kP[k]);  // unrolled by the compiler: a constant count
  return fmaf(a, p, -1.0f);
}

// Phi(z), the standard normal CDF. 1 for NaN z (a < kTailEnd and z < 0 are both false), so that
// GELU's z * Phi(z) is NaN as it should be.
KTUNE_NORMAL_CDF_FN float normal_cdf(float z) {
  const float a = fabsf(z);
  // The tail is evaluated for every a (a polynomial far outside its range gives any value, even
  // inf or NaN) and then dropped past kTailEnd: a select, not a branch.
  const float tail = exp2_approx(log2_lower_tail(a));
  const float h = a < kTailEnd ? tail : 0.0f;
  return z < 0.0f ? h : 1.0f - h;
}

}  // namespace normal_cdf

#undef KTUNE_NORMAL_CDF_FN
