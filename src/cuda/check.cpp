#include "cuda/check.hpp"

#include <fmt/format.h>

#include "cuda/driver.hpp"

namespace ktune::cuda {

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
      return true;
    default:
      return false;
  }
}

bool is_sticky(CUresult e) {
  switch (e) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_UNKNOWN:
      return true;
    default:
      return false;
  }
}

bool is_resource_error(CUresult e) {
  return e == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || e == CUDA_ERROR_INVALID_VALUE ||
         e == CUDA_ERROR_OUT_OF_MEMORY || e == CUDA_ERROR_INVALID_IMAGE ||
         e == CUDA_ERROR_NO_BINARY_FOR_GPU || e == CUDA_ERROR_NOT_SUPPORTED;
}

std::string driver_error_name(CUresult e) {
  const char* name = nullptr;
  if (driver().get_error_name(e, &name) == CUDA_SUCCESS && name) return name;
  return fmt::format("CUresult {}", static_cast<int>(e));
}

void throw_runtime_error(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed: {} ({}) at {}:{}", call, cudaGetErrorName(e),
                              cudaGetErrorString(e), file, line),
                  static_cast<int>(e), is_sticky(e));
}

void throw_driver_error(CUresult e, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed: {} at {}:{}", call, driver_error_name(e), file, line),
                  static_cast<int>(e), is_sticky(e));
}

void throw_cublas_error(cublasStatus_t e, const char* call, const char* file, int line) {
  throw CudaError(fmt::format("{} failed: {} at {}:{}", call, cublasGetStatusName(e), file, line),
                  static_cast<int>(e), false);
}

}  // namespace ktune::cuda
