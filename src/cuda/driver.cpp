#include "cuda/driver.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <mutex>
#include <string>

#include "util/error.hpp"

namespace ktune::cuda {
namespace {

std::string describe_no_gpu(cudaError_t e) {
  switch (e) {
    case cudaErrorInsufficientDriver:
      return "no usable NVIDIA driver: libcuda.so.1 is missing or older than CUDA " +
             std::to_string(CUDART_VERSION / 1000) + " needs";
    case cudaErrorNoDevice:
      return "the NVIDIA driver sees no CUDA device";
    default:
      return fmt::format("CUDA could not start: {} ({})", cudaGetErrorName(e), cudaGetErrorString(e));
  }
}

template <typename Fn>
void resolve(const char* symbol, Fn& fn) {
  void* ptr = nullptr;
  cudaDriverEntryPointQueryResult found{};
  cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &ptr, CUDA_VERSION, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !ptr)
    throw NoGpuError(fmt::format("the CUDA driver does not provide {} (driver too old?)", symbol));
  fn = reinterpret_cast<Fn>(ptr);
}

struct Loaded {
  DriverApi api;
  std::string error;
};

const Loaded& load() {
  static const Loaded loaded = [] {
    Loaded l;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      l.error = describe_no_gpu(e == cudaSuccess ? cudaErrorNoDevice : e);
      return l;
    }
    // Create the current device's primary context now (device 0 unless an application linking
    // the runtime library chose another), so driver calls below have a current context.
    e = cudaFree(nullptr);
    if (e != cudaSuccess) {
      l.error = describe_no_gpu(e);
      return l;
    }
    try {
      resolve("cuGetErrorName", l.api.get_error_name);
      resolve("cuModuleLoadData", l.api.module_load_data);
      resolve("cuModuleUnload", l.api.module_unload);
      resolve("cuModuleGetFunction", l.api.module_get_function);
      resolve("cuFuncSetAttribute", l.api.func_set_attribute);
      resolve("cuFuncGetAttribute", l.api.func_get_attribute);
      resolve("cuLaunchKernel", l.api.launch_kernel);
      resolve("cuDriverGetVersion", l.api.driver_get_version);
      resolve("cuTensorMapEncodeTiled", l.api.tensor_map_encode_tiled);
    } catch (const NoGpuError& err) {
      l.error = err.what();
    }
    return l;
  }();
  return loaded;
}

}  // namespace

const DriverApi& driver() {
  const Loaded& l = load();
  if (!l.error.empty()) throw NoGpuError("no GPU available: " + l.error);
  return l.api;
}

bool gpu_available(std::string* why) {
  const Loaded& l = load();
  if (why) *why = l.error;
  return l.error.empty();
}

}  // namespace ktune::cuda
