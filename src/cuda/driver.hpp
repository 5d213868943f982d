// The CUDA driver API, reached lazily through the runtime's entry-point query, so the binary does
// not link libcuda: ktune starts, prints help and compiles kernels on a machine with no driver.
// Only the worker process touches any of this.
#pragma once

#include <cuda.h>

#include <string>

namespace ktune::cuda {

struct DriverApi {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuDriverGetVersion) driver_get_version = nullptr;
  decltype(&::cuTensorMapEncodeTiled) tensor_map_encode_tiled = nullptr;
};

// Initializes the runtime on the current device (0 unless the caller set another) and resolves the entry points. Throws NoGpuError with a
// message that says what is missing (no driver, no device) the first time; later calls are free.
const DriverApi& driver();

// True when a CUDA device can be used; never throws. `why` gets the reason when it cannot.
bool gpu_available(std::string* why = nullptr);

}  // namespace ktune::cuda
