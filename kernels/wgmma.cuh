// wgmma.cuh — Hopper's warpgroup MMA (sm_90a) as the wgmma kernels share it (gemm_wgmma.cu,
// attention_wgmma.cu): operand kinds, 128-byte-swizzled shared-memory descriptors, the fence,
// commit and wait of asynchronous groups, and the m64nNk(32 bytes) instruction with both
// operands in shared memory (wgmma) or A in registers (wgmma_rs, 16-bit types and tf32).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace wgmma_ops {

// The operand types wgmma multiplies (its instruction's type suffix).
enum class Kind { f16, bf16, tf32, e4m3 };
template <typename T> struct OperandKind;
template <> struct OperandKind<__half> { static constexpr Kind value = Kind::f16; };
template <> struct OperandKind<__nv_bfloat16> { static constexpr Kind value = Kind::bf16; };
template <> struct OperandKind<float> { static constexpr Kind value = Kind::tf32; };
template <> struct OperandKind<__nv_fp8_e4m3> { static constexpr Kind value = Kind::e4m3; };

// ---- wgmma ----

// Shared-memory matrix descriptor of a 128-byte-swizzled operand tile starting at `addr`
// (1024-byte aligned, or offset inside a swizzle row along K). `lbo`: bytes between 64-element
// chunks along M/N of an M/N-major tile (unused for K-major tiles, whose k16 slice lies inside a
// swizzle row). `sbo`: bytes between groups of 8 rows, 1024 for the dense tiles used here.
// Its two words apart: the low one holds the address and `lbo`, the high one `sbo` and the
// swizzle mode. A loop over a ring of tiles adds to the low word alone (shared addresses stay
// below 256 KB, so the 14-bit address field cannot carry) and keeps the high one a constant,
// instead of 64-bit adds on a descriptor held in registers.
__host__ __device__ constexpr unsigned desc_hi(unsigned sbo) { return (sbo >> 4) | 1u << 30; }  // 62: 128-byte swizzle
__device__ __forceinline__ unsigned desc_lo(unsigned addr, unsigned lbo) {
  return ((addr & 0x3FFFF) >> 4) | (lbo >> 4) << 16;
}
__device__ __forceinline__ unsigned long long desc_join(unsigned hi, unsigned lo) {
  return static_cast<unsigned long long>(hi) << 32 | lo;
}
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return desc_join(desc_hi(sbo), desc_lo(addr, lbo));
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int GROUPS_IN_FLIGHT>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(GROUPS_IN_FLIGHT) : "memory");
}

// Keeps the compiler from moving accumulator reads or writes across the asynchronous wgmma that
// owns them (between issue and wait the registers belong to the tensor cores).
template <int R>
__device__ __forceinline__ void fence_accumulators(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The accumulator register lists of m64nNk16: thread-ordered, N/2 fp32 registers.
#define KTUNE_WGMMA_D64                                                             \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
  "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define KTUNE_WGMMA_D80 KTUNE_WGMMA_D64 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define KTUNE_WGMMA_D128                                                            \
  KTUNE_WGMMA_D64                                                                   \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, "   \
  "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define KTUNE_WGMMA_D160                                                               \
  KTUNE_WGMMA_D128                                                                     \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"
#define KTUNE_WGMMA_D176                                                               \
  KTUNE_WGMMA_D128                                                                     \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"   \
  ", %80, %81, %82, %83, %84, %85, %86, %87"
#define KTUNE_WGMMA_D192                                                               \
  KTUNE_WGMMA_D128                                                                     \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79"   \
  ", %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95"
#define KTUNE_WGMMA_D144 KTUNE_WGMMA_D128 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define KTUNE_WGMMA_D208 KTUNE_WGMMA_D192 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define KTUNE_WGMMA_D224 KTUNE_WGMMA_D192 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111"
#define KTUNE_WGMMA_D240 \
  KTUNE_WGMMA_D192 ", %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111" \
  ", %112, %113, %114, %115, %116, %117, %118, %119"
#define KTUNE_WGMMA_D256                                                            \
  KTUNE_WGMMA_D128                                                                  \
  ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, "   \
  "%79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, " \
  "%95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, "  \
  "%109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, "   \
  "%122, %123, %124, %125, %126, %127"
// Accumulator operand lists with constraint C: "+f" (D is read and written) or "=f" (scale-d 0:
// only written, so the registers' earlier values are dead before the wgmma).
#define KTUNE_WGMMA_ACC8(C, i) \
  C(d[(i)]), C(d[(i) + 1]), C(d[(i) + 2]), C(d[(i) + 3]), C(d[(i) + 4]), C(d[(i) + 5]), C(d[(i) + 6]), C(d[(i) + 7])
#define KTUNE_WGMMA_ACC32(C, i) \
  KTUNE_WGMMA_ACC8(C, i), KTUNE_WGMMA_ACC8(C, (i) + 8), KTUNE_WGMMA_ACC8(C, (i) + 16), KTUNE_WGMMA_ACC8(C, (i) + 24)
#define KTUNE_WGMMA_ACC40(C) KTUNE_WGMMA_ACC32(C, 0), KTUNE_WGMMA_ACC8(C, 32)
#define KTUNE_WGMMA_ACC64(C) KTUNE_WGMMA_ACC32(C, 0), KTUNE_WGMMA_ACC32(C, 32)
#define KTUNE_WGMMA_ACC80(C) KTUNE_WGMMA_ACC64(C), KTUNE_WGMMA_ACC8(C, 64), KTUNE_WGMMA_ACC8(C, 72)
#define KTUNE_WGMMA_ACC88(C) \
  KTUNE_WGMMA_ACC64(C), KTUNE_WGMMA_ACC8(C, 64), KTUNE_WGMMA_ACC8(C, 72), KTUNE_WGMMA_ACC8(C, 80)
#define KTUNE_WGMMA_ACC96(C) KTUNE_WGMMA_ACC64(C), KTUNE_WGMMA_ACC32(C, 64)
#define KTUNE_WGMMA_ACC72(C) KTUNE_WGMMA_ACC64(C), KTUNE_WGMMA_ACC8(C, 64)
#define KTUNE_WGMMA_ACC104(C) KTUNE_WGMMA_ACC96(C), KTUNE_WGMMA_ACC8(C, 96)
#define KTUNE_WGMMA_ACC112(C) KTUNE_WGMMA_ACC96(C), KTUNE_WGMMA_ACC8(C, 96), KTUNE_WGMMA_ACC8(C, 104)
#define KTUNE_WGMMA_ACC120(C) \
  KTUNE_WGMMA_ACC96(C), KTUNE_WGMMA_ACC8(C, 96), KTUNE_WGMMA_ACC8(C, 104), KTUNE_WGMMA_ACC8(C, 112)
#define KTUNE_WGMMA_ACC128(C) KTUNE_WGMMA_ACC64(C), KTUNE_WGMMA_ACC32(C, 64), KTUNE_WGMMA_ACC32(C, 96)
// One wgmma, D = A·B + (SCALE_D ? D : 0) with no negation: scale-d 0 starts a sum without zeroing
// the accumulators first. The 16-bit form also takes the transpose bits of M/N-major operands
// (tf32 and e4m3 have none; their transpose operands go unused).
#define KTUNE_WGMMA_FORM(N, KDIM, TYPES, DREGS, OPERANDS, ACC)                                   \
  asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k" #KDIM ".f32" TYPES " {" DREGS "}, " \
               OPERANDS ";\n"                                                                 \
               : ACC                                                                          \
               : "l"(desc_a), "l"(desc_b), "n"(SCALE_D), "n"(TRANS_A), "n"(TRANS_B)           \
               : "memory")
// The N the kernels use (80, 160, 176 and 192: attention's key blocks; 144-240: GEMM tiles that fill
// the last wave of SMs); the operand numbers follow the N/2 accumulator registers.
#define KTUNE_WGMMA_EACH_N(KDIM, TYPES, SCALES, C)                                            \
  {                                                                                            \
    if constexpr (N == 64)                                                                     \
      KTUNE_WGMMA_FORM(64, KDIM, TYPES, KTUNE_WGMMA_D64, "%32, %33, " SCALES(34, 35, 36), KTUNE_WGMMA_ACC32(C, 0)); \
    else if constexpr (N == 80)                                                                \
      KTUNE_WGMMA_FORM(80, KDIM, TYPES, KTUNE_WGMMA_D80, "%40, %41, " SCALES(42, 43, 44), KTUNE_WGMMA_ACC40(C));    \
    else if constexpr (N == 128)                                                               \
      KTUNE_WGMMA_FORM(128, KDIM, TYPES, KTUNE_WGMMA_D128, "%64, %65, " SCALES(66, 67, 68), KTUNE_WGMMA_ACC64(C));  \
    else if constexpr (N == 144)                                                               \
      KTUNE_WGMMA_FORM(144, KDIM, TYPES, KTUNE_WGMMA_D144, "%72, %73, " SCALES(74, 75, 76), KTUNE_WGMMA_ACC72(C));  \
    else if constexpr (N == 160)                                                               \
      KTUNE_WGMMA_FORM(160, KDIM, TYPES, KTUNE_WGMMA_D160, "%80, %81, " SCALES(82, 83, 84), KTUNE_WGMMA_ACC80(C));  \
    else if constexpr (N == 176)                                                               \
      KTUNE_WGMMA_FORM(176, KDIM, TYPES, KTUNE_WGMMA_D176, "%88, %89, " SCALES(90, 91, 92), KTUNE_WGMMA_ACC88(C));  \
    else if constexpr (N == 192)                                                               \
      KTUNE_WGMMA_FORM(192, KDIM, TYPES, KTUNE_WGMMA_D192, "%96, %97, " SCALES(98, 99, 100), KTUNE_WGMMA_ACC96(C)); \
    else if constexpr (N == 208)                                                               \
      KTUNE_WGMMA_FORM(208, KDIM, TYPES, KTUNE_WGMMA_D208, "%104, %105, " SCALES(106, 107, 108),  \
                       KTUNE_WGMMA_ACC104(C));                                                 \
    else if constexpr (N == 224)                                                               \
      KTUNE_WGMMA_FORM(224, KDIM, TYPES, KTUNE_WGMMA_D224, "%112, %113, " SCALES(114, 115, 116),  \
                       KTUNE_WGMMA_ACC112(C));                                                 \
    else if constexpr (N == 240)                                                               \
      KTUNE_WGMMA_FORM(240, KDIM, TYPES, KTUNE_WGMMA_D240, "%120, %121, " SCALES(122, 123, 124),  \
                       KTUNE_WGMMA_ACC120(C));                                                 \
    else                                                                                       \
      KTUNE_WGMMA_FORM(256, KDIM, TYPES, KTUNE_WGMMA_D256, "%128, %129, " SCALES(130, 131, 132),  \
           KTUNE_WGMMA_ACC128(C));                                                             \
  }
#define KTUNE_WGMMA_SCALES_TRANSPOSES(SD, TA, TB) "%" #SD ", 1, 1, %" #TA ", %" #TB
#define KTUNE_WGMMA_SCALES(SD, TA, TB) "%" #SD ", 1, 1"

// One m64nNk(32 bytes) wgmma of the warpgroup: d (N/2 fp32 per thread) += A(64×k)·B(k×N), or
// d = A·B with SCALE_D 0.
template <Kind KIND, int N, int TRANS_A, int TRANS_B, int SCALE_D = 1>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], unsigned long long desc_a,
                                      unsigned long long desc_b) {
  static_assert(N == 64 || N == 80 || N == 128 || N == 144 || N == 160 || N == 176 || N == 192 || N == 208 ||
                    N == 224 || N == 240 || N == 256,
                "wgmma N: 64, 80, 128, 144, 160, 176, 192, 208, 224, 240 or 256");
  static_assert(KIND == Kind::f16 || KIND == Kind::bf16 || (TRANS_A == 0 && TRANS_B == 0),
                "tf32 and e4m3 wgmma read K-major operands only");
#define KTUNE_WGMMA_EACH_KIND(C)                                                   \
  if constexpr (KIND == Kind::f16)                                                 \
    KTUNE_WGMMA_EACH_N(16, ".f16.f16", KTUNE_WGMMA_SCALES_TRANSPOSES, C)           \
  else if constexpr (KIND == Kind::bf16)                                           \
    KTUNE_WGMMA_EACH_N(16, ".bf16.bf16", KTUNE_WGMMA_SCALES_TRANSPOSES, C)         \
  else if constexpr (KIND == Kind::tf32)                                           \
    KTUNE_WGMMA_EACH_N(8, ".tf32.tf32", KTUNE_WGMMA_SCALES, C)                     \
  else                                                                             \
    KTUNE_WGMMA_EACH_N(32, ".e4m3.e4m3", KTUNE_WGMMA_SCALES, C)
  if constexpr (SCALE_D != 0) {
    KTUNE_WGMMA_EACH_KIND("+f")
  } else {
    KTUNE_WGMMA_EACH_KIND("=f")
  }
#undef KTUNE_WGMMA_EACH_KIND
}

// One m64nNk(32 bytes) wgmma with A from registers: d (N/2 fp32 per thread) += A(64×k)·B(k×N).
// A is the warpgroup's fragment, each warp holding its 16 rows, in mma.sync's A layout
// (r = lane/4, c = lane%4): 16-bit types (k16) a[0] rows r, k 2c..2c+1; a[1] rows r+8; a[2] and
// a[3] the same at k+8. tf32 (k8) a[0] row r, k c; a[1] row r+8; a[2] and a[3] the same at k+4.
// TRANS_B 1: B is N-major in shared memory (16-bit types only).
#define KTUNE_WGMMA_RS(N, KDIM, TYPES, DREGS, OPERANDS, ACC)                                           \
  asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k" #KDIM ".f32" TYPES " {" DREGS "}, " OPERANDS \
               ";\n"                                                                                    \
               : ACC                                                                                   \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "n"(TRANS_B)                  \
               : "memory")
// The operands after D: A's four registers, B's descriptor, then scale-d 1, the scales of A and B,
// and (16-bit types) B's transpose bit.
#define KTUNE_WGMMA_RS_EACH_N(KDIM, TYPES, TAIL)                                                                    \
  {                                                                                                                \
    if constexpr (N == 64)                                                                                         \
      KTUNE_WGMMA_RS(64, KDIM, TYPES, KTUNE_WGMMA_D64, "{%32, %33, %34, %35}, %36, 1, 1, 1" TAIL(37),               \
                     KTUNE_WGMMA_ACC32("+f", 0));                                                                  \
    else if constexpr (N == 128)                                                                                   \
      KTUNE_WGMMA_RS(128, KDIM, TYPES, KTUNE_WGMMA_D128, "{%64, %65, %66, %67}, %68, 1, 1, 1" TAIL(69),             \
                     KTUNE_WGMMA_ACC64("+f"));                                                                     \
    else if constexpr (N == 192)                                                                                   \
      KTUNE_WGMMA_RS(192, KDIM, TYPES, KTUNE_WGMMA_D192, "{%96, %97, %98, %99}, %100, 1, 1, 1" TAIL(101),           \
                     KTUNE_WGMMA_ACC96("+f"));                                                                     \
    else                                                                                                           \
      KTUNE_WGMMA_RS(256, KDIM, TYPES, KTUNE_WGMMA_D256, "{%128, %129, %130, %131}, %132, 1, 1, 1" TAIL(133),       \
                     KTUNE_WGMMA_ACC128("+f"));                                                                    \
  }
#define KTUNE_WGMMA_RS_TRANSPOSE(TB) ", %" #TB
#define KTUNE_WGMMA_RS_NO_TRANSPOSE(TB) ""
template <Kind KIND, int N, int TRANS_B>
__device__ __forceinline__ void wgmma_rs(float (&d)[N / 2], const unsigned (&a)[4], unsigned long long desc_b) {
  static_assert(N == 64 || N == 128 || N == 192 || N == 256, "wgmma N: 64, 128, 192 or 256");
  static_assert(KIND != Kind::e4m3, "A from registers: 16-bit types and tf32 here");
  static_assert(KIND != Kind::tf32 || TRANS_B == 0, "tf32 wgmma reads B K-major only");
  if constexpr (KIND == Kind::f16)
    KTUNE_WGMMA_RS_EACH_N(16, ".f16.f16", KTUNE_WGMMA_RS_TRANSPOSE)
  else if constexpr (KIND == Kind::bf16)
    KTUNE_WGMMA_RS_EACH_N(16, ".bf16.bf16", KTUNE_WGMMA_RS_TRANSPOSE)
  else
    KTUNE_WGMMA_RS_EACH_N(8, ".tf32.tf32", KTUNE_WGMMA_RS_NO_TRANSPOSE)
}
#undef KTUNE_WGMMA_RS_NO_TRANSPOSE
#undef KTUNE_WGMMA_RS_TRANSPOSE
#undef KTUNE_WGMMA_RS_EACH_N
#undef KTUNE_WGMMA_RS

#undef KTUNE_WGMMA_SCALES
#undef KTUNE_WGMMA_SCALES_TRANSPOSES
#undef KTUNE_WGMMA_EACH_N
#undef KTUNE_WGMMA_FORM
#undef KTUNE_WGMMA_ACC128
#undef KTUNE_WGMMA_ACC120
#undef KTUNE_WGMMA_ACC112
#undef KTUNE_WGMMA_ACC104
#undef KTUNE_WGMMA_ACC96
#undef KTUNE_WGMMA_ACC88
#undef KTUNE_WGMMA_ACC80
#undef KTUNE_WGMMA_ACC72
#undef KTUNE_WGMMA_ACC64
#undef KTUNE_WGMMA_ACC40
#undef KTUNE_WGMMA_ACC32
#undef KTUNE_WGMMA_ACC8
#undef KTUNE_WGMMA_D256
#undef KTUNE_WGMMA_D240
#undef KTUNE_WGMMA_D224
#undef KTUNE_WGMMA_D208
#undef KTUNE_WGMMA_D192
#undef KTUNE_WGMMA_D176
#undef KTUNE_WGMMA_D160
#undef KTUNE_WGMMA_D144
#undef KTUNE_WGMMA_D128
#undef KTUNE_WGMMA_D80
#undef KTUNE_WGMMA_D64


}  // namespace wgmma_ops
