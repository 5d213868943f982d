// The reference for residual_rmsnorm: one block per row, the row's sum of squares in double, both
// outputs in fp32. The sum is rounded to T first, as every candidate stores and uses it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T>
__global__ void residual_rmsnorm_reference(const T* x, const T* residual, const T* weight, float* sum, float* y,
                                           int rows, int hidden, float eps) {
  __shared__ double partial[256];
  const long long row = blockIdx.x;
  double squares = 0;
  for (int c = threadIdx.x; c < hidden; c += blockDim.x) {
    const float s = (float)T((float)x[row * hidden + c] + (float)residual[row * hidden + c]);
    sum[row * hidden + c] = s;
    squares += (double)s * s;
  }
  partial[threadIdx.x] = squares;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const double rstd = 1.0 / sqrt(partial[0] / hidden + (double)eps);
  for (int c = threadIdx.x; c < hidden; c += blockDim.x)
    y[row * hidden + c] = (float)(sum[row * hidden + c] * rstd * (double)(float)weight[c]);
}
