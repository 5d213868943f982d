// RAII owners for the CUDA handles the worker uses. All move-only; destructors warn, never throw.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/driver.hpp"

namespace ktune::cuda {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (bytes) KTUNE_CUDA(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() {
    if (ptr_) KTUNE_CUDA_WARN(cudaFree(ptr_));
  }
  // move-only
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }

  void* get() const { return ptr_; }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

class Event {
 public:
  Event() { KTUNE_CUDA(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) KTUNE_CUDA_WARN(cudaEventDestroy(event_));
  }
  // move-only
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Stream {
 public:
  Stream() { KTUNE_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) KTUNE_CUDA_WARN(cudaStreamDestroy(stream_));
  }
  // move-only
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// A loaded cubin and one kernel in it.
class Module {
 public:
  explicit Module(const std::string& image) {
    KTUNE_CU(driver().module_load_data(&module_, image.data()));
  }
  ~Module() {
    if (module_) driver().module_unload(module_);
  }
  // move-only
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  CUfunction function(const std::string& lowered_name) const {
    CUfunction f = nullptr;
    KTUNE_CU(driver().module_get_function(&f, module_, lowered_name.c_str()));
    return f;
  }

 private:
  CUmodule module_ = nullptr;
};

}  // namespace ktune::cuda
