// Checking every CUDA, driver and cuBLAS call: a failure throws CudaError carrying the error's
// name, the call's text and file:line. CudaError::sticky() tells the worker that the context is
// unusable (an illegal address and the like) and only a new process can go on.
#pragma once

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>

#include "util/error.hpp"

namespace ktune::cuda {

struct CudaError : Error {
  CudaError(const std::string& what, int code, bool sticky) : Error(what), code_(code), sticky_(sticky) {}
  int code() const { return code_; }
  bool sticky() const { return sticky_; }

 private:
  int code_;
  bool sticky_;
};

[[noreturn]] void throw_runtime_error(cudaError_t, const char* call, const char* file, int line);
[[noreturn]] void throw_driver_error(CUresult, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas_error(cublasStatus_t, const char* call, const char* file, int line);
// Errors after which the CUDA context cannot be used again.
bool is_sticky(cudaError_t);
bool is_sticky(CUresult);
// Errors that say a launch asked for more than the device has (shared memory, registers, threads).
bool is_resource_error(CUresult);
std::string driver_error_name(CUresult);

}  // namespace ktune::cuda

#define KTUNE_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t ktune_status_ = (call);                                                     \
    if (ktune_status_ != cudaSuccess)                                                       \
      ::ktune::cuda::throw_runtime_error(ktune_status_, #call, __FILE__, __LINE__);        \
  } while (0)

#define KTUNE_CU(call)                                                                      \
  do {                                                                                      \
    CUresult ktune_status_ = (call);                                                        \
    if (ktune_status_ != CUDA_SUCCESS)                                                      \
      ::ktune::cuda::throw_driver_error(ktune_status_, #call, __FILE__, __LINE__);         \
  } while (0)

#define KTUNE_CUBLAS(call)                                                                  \
  do {                                                                                      \
    cublasStatus_t ktune_status_ = (call);                                                  \
    if (ktune_status_ != CUBLAS_STATUS_SUCCESS)                                             \
      ::ktune::cuda::throw_cublas_error(ktune_status_, #call, __FILE__, __LINE__);         \
  } while (0)

// For destructors: log, never throw.
#define KTUNE_CUDA_WARN(call)                                                               \
  do {                                                                                      \
    cudaError_t ktune_status_ = (call);                                                     \
    if (ktune_status_ != cudaSuccess)                                                       \
      fprintf(stderr, "ktune: warning: %s failed: %s\n", #call, cudaGetErrorName(ktune_status_)); \
  } while (0)
