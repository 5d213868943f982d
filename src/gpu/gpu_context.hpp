// Everything the worker holds for the life of its process: the device, one stream that all work
// goes to (candidates, cuBLAS, the L2 flush, events), the cuBLAS and cuBLASLt handles and the
// workspace they share, the helper kernels of kernels/util.cu, and the buffer written before every
// timed sample to flush L2.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "measure/kernel_samples.hpp"
#include "measure/timing_method.hpp"
#include "cuda/cupti_timer.hpp"
#include "core/gpu_telemetry.hpp"
#include "cuda/nvml.hpp"
#include "cuda/resources.hpp"
#include "compile/compiler.hpp"
#include "core/element.hpp"
#include "core/record.hpp"

namespace ktune {

class GpuContext {
 public:
  explicit GpuContext(const std::filesystem::path& compile_cache_dir);
  ~GpuContext();
  // move-only (and in practice one per process)
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  const DeviceInfo& device() const { return device_; }
  cudaStream_t stream() const { return stream_.get(); }
  cublasHandle_t cublas() const { return cublas_; }
  cublasLtHandle_t cublas_lt() const { return cublas_lt_; }
  // The workspace cuBLAS is set up with; cuBLASLt calls pass it too (all work is on one stream,
  // so they never use it at the same time).
  void* cublas_workspace() const { return cublas_workspace_.get(); }
  size_t cublas_workspace_bytes() const { return cublas_workspace_.bytes(); }
  const std::filesystem::path& compile_cache_dir() const { return compile_cache_dir_; }

  // dtype: "fp16" | "bf16" | "fp8" (e4m3) | "fp32". n elements of value scale * N(0,1) rounded to
  // dtype, reproducible from seed.
  void fill_normal(void* p, const std::string& dtype, int64_t n, uint64_t seed, float scale);
  // n elements drawn by kind (0 normal with mean a and std b, 1 uniform in [a, b), 2 integers in
  // [a, b], 3 a + b * i), rounded to `element`; reproducible from seed (kernels/util.cu ktune_fill).
  void fill(void* p, const ElementType& element, int64_t n, uint64_t seed, int kind, double a, double b);
  // out[i] = in[i] as fp32 (exact) for n elements of `in` (dtype).
  void to_fp32(const void* in, const std::string& dtype, float* out, int64_t n);
  // x[r][c] *= scales[(r / block_rows) * row_stride + (c / 128) * col_stride] over a rows x cols
  // row-major fp32 matrix: block scales applied to an operand's exact values.
  void scale_blocks(float* x, int64_t rows, int64_t cols, const float* scales, int block_rows, int64_t row_stride,
                    int64_t col_stride);
  // Compares n elements of `out` (dtype) with an fp32 reference on the device.
  ErrorStats compare(const void* out, const std::string& dtype, const float* ref, int64_t n,
                     double atol, double rtol);
  // Compares n integer elements of `out` with `ref` (both `element`): every difference is a
  // mismatch; max_abs and norm_rel say how far.
  ErrorStats compare_exact(const void* out, const void* ref, const ElementType& element, int64_t n);
  // A position-dependent 64-bit hash of `bytes` bytes at `p` (any alignment); waits for it.
  uint64_t checksum(const void* p, size_t bytes);
  // Enqueues one thread that spins for `cycles` SM clock cycles (a planted delay).
  void spin(long long cycles);
  // How samples are timed. Setting "cupti" starts CUPTI's activity records (throws ktune::Error
  // saying why when it cannot).
  const TimingMethod& timing() const { return timing_; }
  void set_timing(const TimingMethod& method);
  // Writes (or reads) a buffer at least twice the L2 size, so the next kernel starts with a cold L2.
  void flush_l2();
  // With TimingMethod::hold: a kernel that holds the stream until release_stream().
  void hold_stream();
  void release_stream();
  // Timer "cupti": the per-sample kernel times of everything finished since the last call.
  std::vector<SampleTime> cupti_samples();
  // The GPU's clocks, power and temperature now (NVML), or nothing where NVML is not available
  // (telemetry_note() says why).
  std::optional<cuda::GpuTelemetry> telemetry() const;
  const std::string& telemetry_note() const { return telemetry_note_; }
  // Launches a kernel on the context's stream.
  void launch(CUfunction f, const Launch& launch, void** args);
  // A kernel of an embedded source ("kernels/reference.cu"), compiled once per process for this
  // device: the families' reference kernels. Throws ktune::Error when it does not compile.
  CUfunction kernel(const std::string& source_path, const std::string& name_expression);
  // A kernel of any source (a declared family's reference), compiled for this device once per
  // process and source name; request.arch is filled in. Throws ktune::Error with NVRTC's log.
  CUfunction kernel(CompileRequest request);

 private:
  CUfunction helper(const std::string& name_expression) { return kernel("kernels/util.cu", name_expression); }

  std::filesystem::path compile_cache_dir_;
  DeviceInfo device_;
  cuda::Stream stream_;
  cublasHandle_t cublas_ = nullptr;
  cublasLtHandle_t cublas_lt_ = nullptr;
  static constexpr size_t kCublasWorkspaceBytes = size_t{64} << 20;
  cuda::DeviceBuffer cublas_workspace_;
  cuda::DeviceBuffer flush_buffer_;
  cuda::DeviceBuffer compare_scratch_;
  unsigned flush_value_ = 0;
  TimingMethod timing_;
  std::optional<cuda::CuptiKernelTimer> cupti_;
  std::optional<cuda::NvmlSampler> nvml_;
  std::string telemetry_note_;
  cuda::DeviceBuffer flush_sink_;
  int* hold_flag_ = nullptr;         // mapped, pinned host memory the hold kernel polls
  int* hold_flag_device_ = nullptr;  // the same memory as the device sees it
  std::map<std::string, std::unique_ptr<cuda::Module>> helper_modules_;
  std::map<std::string, CUfunction> helpers_;
};

}  // namespace ktune
