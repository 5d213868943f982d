// cp.async (sm_80+): copies from global to shared memory that the copying threads do not wait for,
// shared by the kernels that stage tiles themselves (gemm_mma.cu and attention_mma.cu through
// mma_sync.cuh, gemm_wgmma.cu's copying producer). src_bytes below the copy's size fills the rest
// with zeros (src_bytes 0 reads nothing): how tiles are padded past a matrix's edges.
#pragma once

namespace async_copy {

// 16 bytes, cached in L2 only (.cg), with the 128-byte L2 prefetch hint.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes));
}

// BYTES = 4 or 8 (.ca: only .ca takes pieces under 16 bytes). MEMORY 1 also makes it a compiler
// memory barrier, as gemm_wgmma's producer has it; the mma.sync kernels order their shared
// memory with __syncthreads and leave the compiler free.
template <int BYTES, int MEMORY = 0>
__device__ __forceinline__ void cp_async_ca(unsigned dst, const void* src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8, "cp.async.ca copies 4, 8 or 16 bytes; 16 goes by cp_async_16");
  if constexpr (MEMORY)
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES), "r"(src_bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(BYTES),
                 "r"(src_bytes));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Waits until at most N committed groups are still in flight (MEMORY as for cp_async_ca).
template <int N, int MEMORY = 0>
__device__ __forceinline__ void cp_async_wait() {
  if constexpr (MEMORY)
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
  else
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Arrives on the mbarrier at shared address `bar` once every cp.async this thread issued before it
// has landed: how copies that no thread waits for announce a stage of an mbarrier ring. .noinc:
// the arrival counts against the barrier's expected count, so its init must include one per
// arriving thread.
__device__ __forceinline__ void cp_async_arrive_noinc(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

}  // namespace async_copy
