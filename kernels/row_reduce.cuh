// Reductions over the threads that share a row, for the row-wise kernels (softmax, the norms): a
// row belongs to a group of GROUP threads (a power of two), GROUPS groups to a block.
#pragma once

namespace row_reduce {

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Waits for the GROUP threads of this thread's group alone when a block holds several groups
// (a named barrier per group, 1 to 15; 0 is __syncthreads'): a group whose row is reduced does
// not hold up the others, which are loading or writing theirs.
template <int GROUP, int GROUPS>
__device__ __forceinline__ void group_barrier() {
  static_assert(GROUP % 32 == 0, "a group is whole warps");
  if constexpr (GROUPS > 1 && GROUPS < 16)
    asm volatile("bar.sync %0, %1;" ::"r"(1 + static_cast<int>(threadIdx.x) / GROUP), "n"(GROUP) : "memory");
  else
    __syncthreads();
}

// Reduces over the GROUP threads of a row: shuffles within a warp, then (GROUP > 32) shared memory
// across its warps. Every thread of the group must call it (it may synchronize the group, or the
// block); every thread of the group gets the result.
template <int GROUP, int GROUPS, typename Op>
__device__ __forceinline__ float group_reduce(float v, Op op, float (*scratch)[GROUP > 32 ? GROUP / 32 : 1]) {
#pragma unroll
  for (int offset = (GROUP < 32 ? GROUP : 32) / 2; offset > 0; offset /= 2)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if constexpr (GROUP > 32) {
    const int group = threadIdx.x / GROUP, warp = (threadIdx.x % GROUP) / 32;
    if (threadIdx.x % 32 == 0) scratch[group][warp] = v;
    group_barrier<GROUP, GROUPS>();
    v = scratch[group][0];
#pragma unroll
    for (int w = 1; w < GROUP / 32; ++w) v = op(v, scratch[group][w]);
    group_barrier<GROUP, GROUPS>();  // scratch is reused by the next reduction
  }
  return v;
}

// Two sums over the GROUP threads of a row at once: group_reduce with SumOp for a pair, one
// exchange through shared memory instead of two (each a pair of block barriers).
template <int GROUP, int GROUPS>
__device__ __forceinline__ float2 group_sum_pair(float2 v, float2 (*scratch)[GROUP > 32 ? GROUP / 32 : 1]) {
#pragma unroll
  for (int offset = (GROUP < 32 ? GROUP : 32) / 2; offset > 0; offset /= 2) {
    v.x += __shfl_xor_sync(0xffffffffu, v.x, offset);
    v.y += __shfl_xor_sync(0xffffffffu, v.y, offset);
  }
  if constexpr (GROUP > 32) {
    const int group = threadIdx.x / GROUP, warp = (threadIdx.x % GROUP) / 32;
    if (threadIdx.x % 32 == 0) scratch[group][warp] = v;
    group_barrier<GROUP, GROUPS>();
    v = scratch[group][0];
#pragma unroll
    for (int w = 1; w < GROUP / 32; ++w) {
      v.x += scratch[group][w].x;
      v.y += scratch[group][w].y;
    }
    group_barrier<GROUP, GROUPS>();  // scratch is reused by the next reduction
  }
  return v;
}

}  // namespace row_reduce
