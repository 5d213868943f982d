// cuDNN 9 as a baseline library for the memory-bound families (softmax, LayerNorm, RMSNorm): what a
// tuned kernel has to beat. Loaded with dlopen on first use and never linked, so ktune starts,
// shows help and tunes everything else where cuDNN is not installed; there, its absence is a
// message and the caller skips the cuDNN baseline. cudnn.h is included for types, enums and
// function signatures only: every function is looked up with dlsym.
//
// Softmax goes through the legacy cudnnSoftmaxForward (one call, no plan). The norms go through
// the graph (backend) API: one normalization-forward node, an execution plan picked by cuDNN's
// heuristics, run with a variant pack. cuDNN may have no engine for a shape or dtype; then the
// constructor throws and the caller has no cuDNN baseline for that problem.
#pragma once

#include <cudnn.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace ktune::cuda {

namespace detail {
struct CudnnApi;
}

// The library ktune loads: $KTUNE_CUDNN_LIBRARY when set (a path or a soname; tests point it at a
// file that does not exist), else libcudnn.so.9. cuDNN 9's libcudnn.so.9 is a small front that
// loads libcudnn_graph.so.9, libcudnn_ops.so.9, ... from its own directory when first needed.
std::string cudnn_library_name();

// True when the library loads, is cuDNN 9, has every function ktune calls and its graph and ops
// sub-libraries answer. Needs no GPU (cudnnCreate, which does, is CudnnHandle's business). Never
// throws. The answer is cached per library name for the life of the process.
bool cudnn_available();
// Why not: "cuDNN is not available: ..." naming the library and, where it came from there, the
// KTUNE_CUDNN_LIBRARY variable. Empty when cuDNN is available.
std::string cudnn_unavailable_reason();
// The loaded library's version (cudnnGetVersion) as "9.14.0"; empty when cuDNN is not available.
std::string cudnn_version_text();

// A failed cuDNN call. status() tells "cuDNN does not do this" (not_supported(): no engine for the
// shape, a dtype it lacks) from a real failure.
struct CudnnError : Error {
  CudnnError(const std::string& what, cudnnStatus_t status) : Error(what), status_(status) {}
  cudnnStatus_t status() const { return status_; }
  bool not_supported() const { return CUDNN_STATUS_CATEGORY(status_) == CUDNN_STATUS_NOT_SUPPORTED; }

 private:
  cudnnStatus_t status_;
};

// Throws CudnnError "<call> failed: CUDNN_STATUS_... (code): <cuDNN's last error message>" unless
// `status` is CUDNN_STATUS_SUCCESS. `call` names what was called ("cudnnCreate", or
// "cudnnBackendFinalize(execution plan)").
void cudnn_check(cudnnStatus_t status, std::string_view call);

// ktune's dtype names ("fp16" | "bf16" | "fp32") as cuDNN data types. Throws ktune::Error for any
// other name (cuDNN has fp8 types, but these baselines do not take them).
cudnnDataType_t cudnn_data_type(std::string_view dtype);

// A cuDNN context on the current CUDA device (cudnnCreate). Throws ktune::Error with
// cudnn_unavailable_reason() when cuDNN cannot be loaded, CudnnError when cudnnCreate fails (no
// GPU, no driver). Not thread-safe: one handle per thread, as cuDNN asks.
class CudnnHandle {
 public:
  explicit CudnnHandle(cudaStream_t stream = nullptr);
  ~CudnnHandle();  // cudnnDestroy; warns, never throws
  // move-only
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;
  CudnnHandle(CudnnHandle&& o) noexcept;
  CudnnHandle& operator=(CudnnHandle&& o) noexcept;

  cudnnHandle_t get() const { return handle_; }
  // cudnnSetStream: where the following cuDNN calls on this handle run.
  void set_stream(cudaStream_t stream) const;
  const detail::CudnnApi& api() const { return *api_; }

 private:
  const detail::CudnnApi* api_ = nullptr;
  cudnnHandle_t handle_ = nullptr;  // nullptr once moved from
};

// Row-wise softmax of a row-major rows x cols tensor: cudnnSoftmaxForward with
// CUDNN_SOFTMAX_ACCURATE (max subtracted first) over CUDNN_SOFTMAX_MODE_INSTANCE, the tensor
// described as NCHW with n = rows, c = cols, h = w = 1; y = 1 * softmax(x) + 0 * y.
class CudnnSoftmax {
 public:
  // Throws ktune::Error for an unknown dtype or a dimension cuDNN's int-sized tensor descriptor
  // cannot hold, CudnnError when cuDNN refuses the descriptor. The handle must outlive this.
  CudnnSoftmax(const CudnnHandle& handle, std::string_view dtype, int64_t rows, int64_t cols);
  ~CudnnSoftmax();  // cudnnDestroyTensorDescriptor; warns, never throws
  // move-only
  CudnnSoftmax(const CudnnSoftmax&) = delete;
  CudnnSoftmax& operator=(const CudnnSoftmax&) = delete;
  CudnnSoftmax(CudnnSoftmax&& o) noexcept;
  CudnnSoftmax& operator=(CudnnSoftmax&& o) noexcept;

  // Enqueues y = softmax(x) on `stream` (device pointers, rows * cols elements of the dtype).
  // Throws CudnnError when cuDNN refuses (e.g. NOT_SUPPORTED for a dtype this build lacks).
  void run(const void* x, void* y, cudaStream_t stream);

 private:
  const detail::CudnnApi* api_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  cudnnTensorDescriptor_t desc_ = nullptr;  // x and y share it; nullptr once moved from
  cudnnDataType_t dtype_ = CUDNN_DATA_FLOAT;
};

enum class CudnnNormKind {
  layer_norm,  // y = (x - mean) * rstd * scale + bias; writes mean and rstd
  rms_norm,    // y = x * rstd * scale (+ bias); writes rstd, rstd = 1 / sqrt(mean(x^2) + eps)
};
std::string_view to_string(CudnnNormKind kind);

// LayerNorm or RMSNorm over each row of a row-major rows x cols tensor, built with the graph API:
// one CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR in training phase (so it also writes the
// per-row statistics, fp32), x, y, scale and bias in the given dtype, computed in fp32. The plan
// is the first of cuDNN's heuristic engine configs (mode A, then FALLBACK) that finalizes.
// Building the plan took about half a second on an H100 (cuDNN 9.14): one per problem, not per run.
class CudnnNorm {
 public:
  // with_bias: LayerNorm requires a bias (cuDNN's node has no bias-less LayerNorm); RMSNorm takes
  // one optionally. Throws ktune::Error for bad arguments, CudnnError (not_supported() where no
  // engine takes the problem, naming what each engine config answered) when cuDNN cannot build a
  // plan. The handle must outlive this.
  CudnnNorm(const CudnnHandle& handle, CudnnNormKind kind, std::string_view dtype, int64_t rows,
            int64_t cols, bool with_bias);
  ~CudnnNorm();
  // move-only
  CudnnNorm(const CudnnNorm&) = delete;
  CudnnNorm& operator=(const CudnnNorm&) = delete;
  CudnnNorm(CudnnNorm&&) noexcept;
  CudnnNorm& operator=(CudnnNorm&&) noexcept;

  // Device memory run() needs as `workspace` (often 0).
  size_t workspace_bytes() const;
  // Which engine the plan uses, for reports: "engine 12 (heuristics mode A, config 1 of 3)".
  const std::string& engine() const;

  // Enqueues the normalization on `stream`. Device pointers, 16-byte aligned: x and y rows * cols
  // elements, scale and bias cols elements (bias: null exactly when built without one), mean and
  // rstd rows floats (mean: LayerNorm only, null for RMSNorm), workspace workspace_bytes() bytes.
  // eps is passed by value. Throws ktune::Error for a pointer that contradicts the construction,
  // CudnnError when execution fails.
  void run(const void* x, const void* scale, const void* bias_or_null, float eps, void* y,
           float* mean_or_null, float* rstd, cudaStream_t stream, void* workspace);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune::cuda
