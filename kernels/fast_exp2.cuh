// fast_exp2.cuh — 2^x in one SFU instruction, for the kernels' exponentials (softmax, attention's
// online softmax, GELU's normal tail).
//
// exp2f compiles to MUFU.EX2 plus a compare and two predicated multiplies, which exist only to keep
// results below 2^-126 exact: six instructions an exponential where ex2.approx.ftz takes three. The
// callers' results that small are zero within their tolerances, so they take the flush.
#pragma once

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
