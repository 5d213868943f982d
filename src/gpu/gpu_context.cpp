#include "gpu/gpu_context.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/check.hpp"
#include "cuda/device_query.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

// The C++ type of a problem dtype, as the helper kernels are instantiated with it.
std::string_view element_type(const std::string& dtype) {
  const ElementType* e = find_element(dtype);
  if (!e) throw Error("unknown dtype " + dtype);
  return e->cpp;
}

// Scratch layout for ktune_compare: 3 doubles, 2 unsigned, 2 unsigned long long.
struct CompareScratch {
  double sums[3];
  unsigned maxes[2];
  unsigned long long counts[2];
};
// The device scratch the comparisons and the checksum share (each at most this).
constexpr size_t kCompareScratchBytes = 64;
static_assert(sizeof(CompareScratch) <= kCompareScratchBytes);

}  // namespace

GpuContext::GpuContext(const std::filesystem::path& compile_cache_dir)
    : compile_cache_dir_(compile_cache_dir), device_(cuda::query_device()) {
  KTUNE_CUBLAS(cublasCreate(&cublas_));
  KTUNE_CUBLAS(cublasSetStream(cublas_, stream_.get()));
  // A generous workspace (set after the stream, which resets it), so cuBLAS's heuristics may pick
  // any algorithm: the reference must be at its best, as PyTorch gives it one too.
  cublas_workspace_ = cuda::DeviceBuffer(kCublasWorkspaceBytes);
  KTUNE_CUBLAS(cublasSetWorkspace(cublas_, cublas_workspace_.get(), cublas_workspace_.bytes()));
  KTUNE_CUBLAS(cublasLtCreate(&cublas_lt_));
  flush_buffer_ = cuda::DeviceBuffer(static_cast<size_t>(std::max<int64_t>(device_.l2_bytes, 1 << 20)) * 2);
  flush_sink_ = cuda::DeviceBuffer(sizeof(unsigned));
  compare_scratch_ = cuda::DeviceBuffer(kCompareScratchBytes);
  KTUNE_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&hold_flag_), sizeof(int), cudaHostAllocMapped));
  *hold_flag_ = 0;
  KTUNE_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&hold_flag_device_), hold_flag_, 0));
  // Clocks and power next to every measurement; a GPU without NVML still measures, and says so.
  char bus_id[32] = {};
  int device = 0;
  KTUNE_CUDA(cudaGetDevice(&device));
  KTUNE_CUDA(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  try {
    nvml_.emplace(cuda::NvmlSampler::for_pci_bus_id(bus_id));
  } catch (const Error& e) {
    telemetry_note_ = e.what();
  }
}

GpuContext::~GpuContext() {
  if (hold_flag_) KTUNE_CUDA_WARN(cudaFreeHost(hold_flag_));
  if (cublas_lt_) cublasLtDestroy(cublas_lt_);
  if (cublas_) cublasDestroy(cublas_);
}

CUfunction GpuContext::kernel(const std::string& source_path, const std::string& name_expression) {
  auto source = find_embedded(source_path);
  if (!source) throw Error(source_path + " is not embedded in this build");
  CompileRequest request;
  request.source_name = source_path;
  request.source_text = std::string(*source);
  request.name_expression = name_expression;
  return kernel(std::move(request));
}

CUfunction GpuContext::kernel(CompileRequest request) {
  const std::string key = request.source_name + ":" + request.name_expression;
  auto found = helpers_.find(key);
  if (found != helpers_.end()) return found->second;
  NvrtcCompiler compiler(compile_cache_dir_);
  request.arch = device_.arch();
  CompileInfo info = compiler.compile(request);
  if (!info.ok) throw Error("kernel " + request.name_expression + " failed to compile:\n" + info.log);
  auto module = std::make_unique<cuda::Module>(read_file(info.cubin_path));
  CUfunction f = module->function(info.lowered_name);
  helper_modules_[key] = std::move(module);
  helpers_[key] = f;
  return f;
}

void GpuContext::launch(CUfunction f, const Launch& l, void** args) {
  const cuda::DriverApi& api = cuda::driver();
  KTUNE_CU(api.launch_kernel(f, static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
                             static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]),
                             static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]),
                             static_cast<unsigned>(l.shared_bytes), stream_.get(), args, nullptr));
}

void GpuContext::fill_normal(void* p, const std::string& dtype, int64_t n, uint64_t seed, float scale) {
  CUfunction f = helper(fmt::format("ktune_fill_normal<{}>", element_type(dtype)));
  long long count = n;
  unsigned long long s = seed;
  void* args[] = {&p, &count, &s, &scale};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((n + 255) / 256, 1, int64_t(device_.sm_count) * 32);
  launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
}

void GpuContext::fill(void* p, const ElementType& element, int64_t n, uint64_t seed, int kind, double a, double b) {
  CUfunction f = helper(fmt::format("ktune_fill<{}>", element.cpp));
  long long count = n;
  unsigned long long s = seed;
  void* args[] = {&p, &count, &s, &kind, &a, &b};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((n + 255) / 256, 1, int64_t(device_.sm_count) * 32);
  launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
}

ErrorStats GpuContext::compare_exact(const void* out, const void* ref, const ElementType& element, int64_t n) {
  CUfunction f = helper(fmt::format("ktune_compare_exact<{}>", element.cpp));
  struct Scratch {
    double sums[2];
    unsigned long long maxes[1];
    unsigned long long counts[2];
  };
  static_assert(sizeof(Scratch) <= kCompareScratchBytes);
  auto* scratch = compare_scratch_.as<Scratch>();
  KTUNE_CUDA(cudaMemsetAsync(scratch, 0, sizeof(Scratch), stream_.get()));
  long long count = n;
  double* sums = scratch->sums;
  unsigned long long* maxes = scratch->maxes;
  unsigned long long* counts = scratch->counts;
  void* args[] = {&out, &ref, &count, &sums, &maxes, &counts};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((n + 255) / 256, 1, int64_t(device_.sm_count) * 16);
  launch(f, l, args);
  Scratch host{};
  KTUNE_CUDA(cudaMemcpyAsync(&host, scratch, sizeof host, cudaMemcpyDeviceToHost, stream_.get()));
  KTUNE_CUDA(cudaStreamSynchronize(stream_.get()));
  ErrorStats e;
  e.max_abs = static_cast<double>(host.maxes[0]);
  e.max_rel = e.max_abs;  // an integer's difference is its error
  e.norm_rel = host.sums[1] > 0 ? std::sqrt(host.sums[0] / host.sums[1]) : std::sqrt(host.sums[0]);
  e.mismatches = static_cast<int64_t>(host.counts[1]);
  return e;
}

void GpuContext::to_fp32(const void* in, const std::string& dtype, float* out, int64_t n) {
  CUfunction f = helper(fmt::format("ktune_to_fp32<{}>", element_type(dtype)));
  long long count = n;
  void* args[] = {&in, &out, &count};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((n + 255) / 256, 1, int64_t(device_.sm_count) * 32);
  launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
}

void GpuContext::scale_blocks(float* x, int64_t rows, int64_t cols, const float* scales, int block_rows,
                              int64_t row_stride, int64_t col_stride) {
  CUfunction f = helper("ktune_scale_blocks");
  long long r = rows, c = cols, rs = row_stride, cs = col_stride;
  void* args[] = {&x, &r, &c, &scales, &block_rows, &rs, &cs};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((rows * cols + 255) / 256, 1, int64_t(device_.sm_count) * 32);
  launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
}

ErrorStats GpuContext::compare(const void* out, const std::string& dtype, const float* ref, int64_t n,
                               double atol, double rtol) {
  CUfunction f = helper(fmt::format("ktune_compare<{}>", element_type(dtype)));
  auto* scratch = compare_scratch_.as<CompareScratch>();
  KTUNE_CUDA(cudaMemsetAsync(scratch, 0, sizeof(CompareScratch), stream_.get()));
  long long count = n;
  float a = static_cast<float>(atol), r = static_cast<float>(rtol);
  double* sums = scratch->sums;
  unsigned* maxes = scratch->maxes;
  unsigned long long* counts = scratch->counts;
  void* args[] = {&out, &ref, &count, &a, &r, &sums, &maxes, &counts};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>((n + 255) / 256, 1, int64_t(device_.sm_count) * 16);
  launch(f, l, args);
  CompareScratch host{};
  KTUNE_CUDA(cudaMemcpyAsync(&host, scratch, sizeof host, cudaMemcpyDeviceToHost, stream_.get()));
  KTUNE_CUDA(cudaStreamSynchronize(stream_.get()));
  auto as_float = [](unsigned bits) {
    float v;
    static_assert(sizeof v == sizeof bits);
    std::memcpy(&v, &bits, sizeof v);
    return static_cast<double>(v);
  };
  ErrorStats e;
  e.max_abs = as_float(host.maxes[0]);
  e.max_rel = as_float(host.maxes[1]);
  e.norm_rel = host.sums[1] > 0 ? std::sqrt(host.sums[0] / host.sums[1]) : std::sqrt(host.sums[0]);
  e.floor_norm_rel = host.sums[1] > 0 ? std::sqrt(host.sums[2] / host.sums[1]) : std::sqrt(host.sums[2]);
  e.nonfinite = static_cast<int64_t>(host.counts[0]);
  e.mismatches = static_cast<int64_t>(host.counts[1]);
  return e;
}

uint64_t GpuContext::checksum(const void* p, size_t bytes) {
  CUfunction f = helper("ktune_checksum");
  auto* sum = compare_scratch_.as<unsigned long long>();
  KTUNE_CUDA(cudaMemsetAsync(sum, 0, sizeof *sum, stream_.get()));
  long long count = static_cast<long long>(bytes);
  void* args[] = {&p, &count, &sum};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::clamp<int64_t>(static_cast<int64_t>(bytes / (16 * 256)) + 1, 1, int64_t(device_.sm_count) * 8);
  launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  KTUNE_CUDA(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, stream_.get()));
  KTUNE_CUDA(cudaStreamSynchronize(stream_.get()));
  return host;
}

void GpuContext::spin(long long cycles) {
  CUfunction f = helper("ktune_spin");
  void* args[] = {&cycles};
  Launch l;
  launch(f, l, args);
}

void GpuContext::set_timing(const TimingMethod& method) {
  if (method.timer != "events" && method.timer != "cupti") throw ConfigError("unknown timer " + method.timer);
  if (method.l2_flush != "write" && method.l2_flush != "read") throw ConfigError("unknown L2 flush " + method.l2_flush);
  if (method.timer == "cupti" && !cupti_) cupti_.emplace();
  if (method.timer != "cupti") cupti_.reset();
  timing_ = method;
}

void GpuContext::flush_l2() {
  if (timing_.l2_flush == "read") {
    CUfunction f = helper("ktune_read_flush");
    const void* p = flush_buffer_.get();
    long long chunks = static_cast<long long>(flush_buffer_.bytes() / 16);
    void* sink = flush_sink_.get();
    void* args[] = {&p, &chunks, &sink};
    Launch l;
    l.block[0] = 512;
    l.grid[0] = int64_t(device_.sm_count) * 4;
    launch(f, l, args);
    return;
  }
  // A different value each time, so no part of the memory system can skip the writes.
  KTUNE_CUDA(cudaMemsetAsync(flush_buffer_.get(), static_cast<int>(++flush_value_ & 0xff),
                             flush_buffer_.bytes(), stream_.get()));
}

void GpuContext::hold_stream() {
  CUfunction f = helper("ktune_hold");
  *reinterpret_cast<volatile int*>(hold_flag_) = 0;
  int* device_flag = hold_flag_device_;
  // A safety valve, not a timing: a host that never releases the stream must not hang the GPU.
  // Enqueuing a batch takes well under a millisecond; under a profiler that runs each launch to
  // completion before returning (ncu), the hold can only end here, so keep it short.
  long long max_cycles = static_cast<long long>(device_.sm_clock_khz) * 1000 / 5;  // about 200 ms
  void* args[] = {&device_flag, &max_cycles};
  launch(f, Launch{}, args);
}

void GpuContext::release_stream() { *reinterpret_cast<volatile int*>(hold_flag_) = 1; }

std::vector<SampleTime> GpuContext::cupti_samples() {
  if (!cupti_) throw Error("the CUPTI timer is not running");
  cupti_->flush();
  std::vector<ActivitySpan> spans = cupti_->take();
  auto is_kernel = [](const ActivitySpan& s, const char* name) {
    return s.kind == ActivitySpan::Kind::kernel && s.name.find(name) != std::string::npos;
  };
  // The hold kernel is enqueued before a sample's flush, so it would land in the previous sample
  // (with --cooldown, every sample's): it waits on the host, it is not work.
  std::erase_if(spans, [&](const ActivitySpan& s) { return is_kernel(s, "ktune_hold"); });
  // The read flush is a kernel: make it the sample marker a write flush's memset is.
  for (ActivitySpan& s : spans)
    if (is_kernel(s, "ktune_read_flush")) {
      s.kind = ActivitySpan::Kind::memset;
      s.bytes = flush_buffer_.bytes();
    }
  if (cupti_->lost() > 0) throw Error(fmt::format("CUPTI lost {} activity records", cupti_->lost()));
  return split_into_samples(std::move(spans), flush_buffer_.bytes());
}

std::optional<cuda::GpuTelemetry> GpuContext::telemetry() const {
  if (!nvml_) return std::nullopt;
  return nvml_->sample();
}

}  // namespace ktune
