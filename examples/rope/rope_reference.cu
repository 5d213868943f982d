// The reference for rope: one thread per (token, head, pair), fp32 in and out. x arrives as the
// fp32 copy of the candidates' starting x (an inout buffer), and is rotated in place.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void rope_reference(float* x, const T* cos_sin, int tokens, int heads, int head_dim) {
  const int half = head_dim / 2;
  const long long pairs = (long long)tokens * heads * half;
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < pairs; p += (long long)gridDim.x * blockDim.x) {
    const long long token = p / ((long long)heads * half);
    const int i = (int)(p % half);
    float* head = x + (p / half) * head_dim;
    const float c = (float)cos_sin[token * head_dim + i], s = (float)cos_sin[token * head_dim + half + i];
    const float x1 = head[i], x2 = head[i + half];
    head[i] = x1 * c - x2 * s;
    head[i + half] = x2 * c + x1 * s;
  }
}
