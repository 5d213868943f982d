// stream_load.cuh — the 16-byte load of an operand that is read once, and the occupancy a stream
// kernel promises ptxas (gemv.cu, gemv_dot.cu, gemv_rows.cu, gemv_nvfp4.cu).
#pragma once

// The predicated 16-byte load's text, with an L2 qualifier spliced into the instruction: zeros
// where the predicate (%5) is false, with no branch around the load; no L1 allocation, since
// nothing reads these bytes again.
#define KTUNE_STREAM16_ASM(L2_QUALIFIER)                                \
  "{\n .reg .pred q;\n setp.ne.b32 q, %5, 0;\n"                         \
  " mov.b32 %0, 0;\n mov.b32 %1, 0;\n mov.b32 %2, 0;\n mov.b32 %3, 0;\n" \
  " @q ld.global.nc.L1::no_allocate" L2_QUALIFIER ".v4.b32 {%0, %1, %2, %3}, [%4];\n}\n"

// 16 bytes at p, zero where `pred` is false.
__device__ __forceinline__ uint4 load_stream16(const void* p, bool pred) {
  uint4 v;
  asm(KTUNE_STREAM16_ASM("") : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "r"((int)pred));
  return v;
}

// load_stream16, also asking L2 to fetch the 256 bytes around p from DRAM (.L2::256B), for loads
// that take a piece of a line whose neighbours other warps take soon after: gemv_nvfp4's warps take
// 64-byte chunks of a weight row in turn, so that one request may bring four warps' chunks
// (same winners 2.3-3.9% faster against cuBLAS at 1-8 x 4096 x 14336 and 14336 x 4096 on an H200
// by the events; ncu, caches flushed, saw at most 2%: results/h200/nvfp4-l2-hint-s48).
__device__ __forceinline__ uint4 load_stream16_l2_256(const void* p, bool pred) {
  uint4 v;
  asm(KTUNE_STREAM16_ASM(".L2::256B") : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "r"((int)pred));
  return v;
}

// Blocks per SM for __launch_bounds__ (0: no promise) where a thread needs `registers` to keep the
// loads it issues together in flight: as many blocks as fit at that count, in allocation units of
// 8. Promised nothing, ptxas aimed at full occupancy once split-K's sums stopped needing
// registers (splitk.cuh): 32 of them in the GEMV, whose loads then issued one at a time (SASS,
// 1x4096x4096 fp16, SPLIT_K 8: 39 us on the H100 against 22 with them together).
__host__ __device__ constexpr int stream_blocks_per_sm(int threads, int registers) {
  return 65536 / (threads * ((registers + 7) / 8 * 8));
}
