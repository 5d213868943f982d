// The reference for vector_add: the sum in fp32, written in fp32 (exact for fp16 and bf16 inputs),
// so a candidate may differ from it only by its one rounding to the output type.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void add_reference(const T* a, const T* b, float* c, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    c[i] = static_cast<float>(a[i]) + static_cast<float>(b[i]);
}
