// fast_exp2.cuh — 2^x in one SFU instruction, for the kernels' exponentials (softmax, attention's
// online softmax, GELU's normal tail).
//
// exp2f compiles to MUFU.EX2 plus a compare and two predicated multiplies, which keep results below
// 2^-126 as subnormals instead of flushing them to zero: four instructions where ex2.approx.ftz is
// the MUFU.EX2 alone. The callers' results that small are zero within their tolerances, so they take
// the flush.
#pragma once

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
