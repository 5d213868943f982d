// cuDNN's softmax baseline: the legacy cudnnSoftmaxForward, one call and no plan.
#include <fmt/format.h>

#include <climits>
#include <cstdio>
#include <utility>

#include "cuda/cudnn.hpp"
#include "cuda/detail/cudnn_api.hpp"

namespace ktune::cuda {

using detail::status_text;

CudnnSoftmax::CudnnSoftmax(const CudnnHandle& handle, std::string_view dtype, int64_t rows, int64_t cols)
    : api_(&handle.api()), handle_(handle.get()), dtype_(cudnn_data_type(dtype)) {
  if (rows <= 0 || cols <= 0 || rows > INT_MAX || cols > INT_MAX)
    throw Error(fmt::format("cuDNN softmax: {} x {} does not fit a 4-D tensor descriptor (int dimensions)", rows, cols));
  KTUNE_CUDNN_CALL(*api_, cudnnCreateTensorDescriptor, &desc_);
  try {
    KTUNE_CUDNN_CALL(*api_, cudnnSetTensor4dDescriptor, desc_, CUDNN_TENSOR_NCHW, dtype_, static_cast<int>(rows),
                     static_cast<int>(cols), 1, 1);
  } catch (...) {
    api_->cudnnDestroyTensorDescriptor(desc_);
    throw;
  }
}

CudnnSoftmax::~CudnnSoftmax() {
  if (!desc_) return;
  cudnnStatus_t s = api_->cudnnDestroyTensorDescriptor(desc_);
  if (s != CUDNN_STATUS_SUCCESS)
    fprintf(stderr, "ktune: warning: cudnnDestroyTensorDescriptor failed: %s\n", status_text(api_, s).c_str());
}

CudnnSoftmax::CudnnSoftmax(CudnnSoftmax&& o) noexcept
    : api_(o.api_), handle_(o.handle_), desc_(std::exchange(o.desc_, nullptr)), dtype_(o.dtype_) {}

CudnnSoftmax& CudnnSoftmax::operator=(CudnnSoftmax&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(handle_, o.handle_);
  std::swap(desc_, o.desc_);
  std::swap(dtype_, o.dtype_);
  return *this;
}

void CudnnSoftmax::run(const void* x, void* y, cudaStream_t stream) {
  if (!desc_) throw Error("CudnnSoftmax::run on a moved-from object");
  KTUNE_CUDNN_CALL(*api_, cudnnSetStream, handle_, stream);
  // The scaling factors are float for half, bfloat16 and float tensors (double only for double).
  float alpha = 1.0f, beta = 0.0f;
  KTUNE_CUDNN_CALL(*api_, cudnnSoftmaxForward, handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha,
                   desc_, x, &beta, desc_, y);
}


}  // namespace ktune::cuda
