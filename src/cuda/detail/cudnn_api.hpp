// The cuDNN functions ktune calls, looked up with dlsym when cuda/cudnn.cpp loads the library, and
// the checks around their calls: shared by the files that call cuDNN (the loader and handle in
// cudnn.cpp, the graph helpers, softmax, the norms). Only for cuda/.
#pragma once

#include <cudnn.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace ktune::cuda::detail {

// Every cuDNN function ktune calls. decltype(&::fn) takes the signature from cudnn.h without
// referencing the symbol, so nothing links against libcudnn; the values come from dlsym.
#define KTUNE_CUDNN_FUNCTIONS(X)    \
  X(cudnnGetVersion)                \
  X(cudnnGetErrorString)            \
  X(cudnnCreate)                    \
  X(cudnnDestroy)                   \
  X(cudnnSetStream)                 \
  X(cudnnCreateTensorDescriptor)    \
  X(cudnnSetTensor4dDescriptor)     \
  X(cudnnDestroyTensorDescriptor)   \
  X(cudnnSoftmaxForward)            \
  X(cudnnBackendCreateDescriptor)   \
  X(cudnnBackendDestroyDescriptor)  \
  X(cudnnBackendSetAttribute)       \
  X(cudnnBackendGetAttribute)       \
  X(cudnnBackendFinalize)           \
  X(cudnnBackendExecute)

struct CudnnApi {
#define KTUNE_CUDNN_MEMBER(fn) decltype(&::fn) fn = nullptr;
  KTUNE_CUDNN_FUNCTIONS(KTUNE_CUDNN_MEMBER)
#undef KTUNE_CUDNN_MEMBER
  // Optional: the detail behind a status ("cudaGetDeviceCount(&count) != cudaSuccess").
  decltype(&::cudnnGetLastErrorString) cudnnGetLastErrorString = nullptr;

  std::string library;
  size_t version = 0;  // cudnnGetVersion(): 91400 for 9.14.0
};

// The loaded library's functions; throws Error (cudnn_unavailable_reason()) where it did not load.
const CudnnApi& api_or_throw();

// "CUDNN_STATUS_... (code)"; the name only where api has cudnnGetErrorString.
std::string status_text(const CudnnApi* api, cudnnStatus_t status);
// cuDNN's message for the last failure on this thread, if it keeps one (reading it clears it).
std::string last_error(const CudnnApi& api);
// Throws CudnnError "<call> failed: <status>: <last error>".
[[noreturn]] void fail(const CudnnApi& api, cudnnStatus_t status, std::string_view call);
void check(const CudnnApi& api, cudnnStatus_t status, std::string_view call);

}  // namespace ktune::cuda::detail

// Calls api.fn(args...) and throws CudnnError naming fn when it fails.
#define KTUNE_CUDNN_CALL(api, fn, ...) ::ktune::cuda::detail::check((api), (api).fn(__VA_ARGS__), #fn)
