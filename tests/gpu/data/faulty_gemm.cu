// A deliberately broken GEMM for the planted-fault test: FAULT picks the failure, and a sweep over
// FAULT must classify each one and still finish with the correct candidate (FAULT = 0) as winner.
//   0 correct (naive, one thread per output)   1 illegal address (a write far out of bounds)
//   2 hang (spins forever)                     3 wrong answer (drops the last k)
//   4 does not compile                         5 asks for more shared memory than any GPU has
//   7 right on its first launch, then idle     8 right on its first launch, then half-written
//   9 also writes one row past C               10 also writes into the input A
// 7 and 8 are what a persistent or split-K kernel with counters that do not reset looks like: only
// a check on freshly poisoned outputs after the timed runs tells them from a correct kernel.
#include <cuda_bf16.h>
#include <cuda_fp16.h>


// Blocks started since the module was loaded (it is loaded afresh for every candidate run). A
// block that sees a count past one grid's worth belongs to a later launch.
__device__ unsigned long long faulty_blocks_started;

template <typename T, int A_ROW_MAJOR, int B_ROW_MAJOR, int FAULT>
__global__ void faulty_gemm(const T* A, const T* B, T* C, int M, int N, int K) {
  static_assert(FAULT != 4, "planted compile error (FAULT = 4)");
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (FAULT == 7 || FAULT == 8) {
    __shared__ bool later_launch;
    if (threadIdx.x == 0 && threadIdx.y == 0)
      later_launch = atomicAdd(&faulty_blocks_started, 1ull) >= (unsigned long long)gridDim.x * gridDim.y;
    __syncthreads();
    if (later_launch && (FAULT == 7 || row >= M / 2)) return;
  }
  if (FAULT == 2) {
    // Waits for a value nobody writes (C is poisoned with 0xFF bytes): a read of global memory the
    // compiler cannot remove or hoist, unlike a spin on a local.
    volatile const int* never_set = reinterpret_cast<volatile const int*>(C);
    while (*never_set != 0x12345678) {
    }
  }
  if (row >= M || col >= N) return;
  float acc = 0.f;
  int k_end = FAULT == 3 ? K - 1 : K;
  for (int k = 0; k < k_end; ++k) {
    float a = float(A_ROW_MAJOR ? A[(long long)row * K + k] : A[(long long)k * M + row]);
    float b = float(B_ROW_MAJOR ? B[(long long)k * N + col] : B[(long long)col * K + k]);
    acc += a * b;
  }
  long long offset = (long long)row * N + col;
  if (FAULT == 1) offset += (1ll << 40);
  C[offset] = T(acc);
  if (FAULT == 9 && row == M - 1) C[offset + N] = T(acc);  // the row after the last one
  if (FAULT == 10 && row == 0 && col == 0) const_cast<T*>(A)[0] = T(acc);
}
