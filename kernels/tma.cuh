// tma.cuh — Hopper's tensor memory accelerator as the sm_90 kernels use it (gemm_wgmma.cu's
// operand pipeline and epilogue, attention_wgmma.cu's Q/K/V ring): boxes of a tensor map copied
// between global and shared memory by the copy engine, completing an mbarrier's transaction count,
// and the named barriers that order warpgroups around them. Include only in code compiled for
// sm_90 and newer.
#pragma once

// cuda.h's opaque tensor map, which NVRTC cannot include: 128 bytes, 64-byte aligned. The host
// encodes it (cuTensorMapEncodeTiled) and passes it by value as a __grid_constant__ parameter.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};

namespace tma {

// ---- loads ----

// One box of a 2-D tensor map at element coordinates (c0 inner, c1 outer) into shared memory;
// completes `bar`'s transaction count by the box's full size (zero-filled parts included).
__device__ __forceinline__ void tma_load_2d(unsigned dst, const CUtensorMap* map, unsigned bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

// The same for a 4-D tensor map (c0 innermost): the attention tensors, [batch, heads, seq, dim] or
// [batch, seq, heads, dim], whose boxes span one head of one batch, so that a tile's rows past the
// sequence are zero-filled instead of read from the next head.
__device__ __forceinline__ void tma_load_4d(unsigned dst, const CUtensorMap* map, unsigned bar,
                                            int c0, int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

// The same box into the same shared offset of every CTA in `mask`, completing the mbarrier at the
// same offset in each of them.
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const CUtensorMap* map,
                                                      unsigned bar, int c0, int c1,
                                                      unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}

__device__ __forceinline__ void prefetch_tensor_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map))
               : "memory");
}

// ---- stores ----

// One box of shared memory (at `src`, laid out as the map's box and swizzle) to a 2-D tensor map
// at element coordinates (c0 inner, c1 outer); the copy engine clips what lies past the edges.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, unsigned src, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
          reinterpret_cast<unsigned long long>(map)),
      "r"(src), "r"(c0), "r"(c1)
      : "memory");
}

// ---- named barriers ----

// Barrier `id` (1..15; 0 is __syncthreads) over `threads` threads, e.g. one consumer warpgroup.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// Counts this warp's threads toward barrier `id` without waiting for it: how one warpgroup hands
// its turn to another that waits there with named_barrier_sync.
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace tma
