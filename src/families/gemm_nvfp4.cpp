// gemm_nvfp4: C = A * W^T with NVFP4 weights (weight-only quantization), the form decode runs a
// 4-bit checkpoint in: A M x K and C M x N in bf16 or fp16, W N x K as e2m1 values in groups of 16
// along K with an e4m3 scale each and one fp32 tensor scale (docs/formats.md, "nvfp4"; the same
// layout `ktune quantize --format nvfp4` writes). The kernels dequantize on the way to the tensor
// cores: kernels/gemv_nvfp4.cu streams them for decode (M <= 16), kernels/gemm_nvfp4_wgmma.cu tiles
// prefill (M >= 16) on Hopper's wgmma.
//
// Inputs: A ~ N(0,1) in the dtype; W drawn ~ N(0,1)/sqrt(K) in fp32 and quantized by the same
// host code as `ktune quantize` (quant/block_scaled.hpp), so the outputs are about N(0,1). The
// reference is the pedantic fp32 GEMM of A's exact values and W's exactly dequantized ones. The
// baseline is what users run today: cuBLAS at the same shape with 16-bit weights, here the
// dequantized ones (e2m1 * group scale is exact in bf16 and fp16, the tensor scale goes in
// alpha), so it computes the same answer as the reference; the copy roof of the nvfp4 traffic is
// timed beside it.
//
// Kernel arguments: const T* A, const unsigned char* W, const unsigned char* W_scales,
// const float* tensor_scale, T* C, int M, int N, int K, then split-K's float* partials and
// unsigned* arrivals (as gemm's); A or W replaced by its TMA descriptor when the config names it in
// "tensor_maps".
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/tensor_map.hpp"
#include "families/elementwise.hpp"
#include "families/family.hpp"
#include "gpu/copy_roof.hpp"
#include "gpu/gpu_context.hpp"
#include "quant/block_scaled.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

constexpr int64_t kSplitKPartialBytes = 32 << 20;
constexpr int64_t kSplitKCounters = 1 << 14;

struct Shape {
  int64_t m, n, k;
  explicit Shape(const Problem& p) : m(p.dims.at("M")), n(p.dims.at("N")), k(p.dims.at("K")) {}
  int64_t weight_bytes() const { return n * k / 2; }
  int64_t scale_bytes() const { return n * k / 16; }
};

// Up to this many rows the weights' bytes bound the time (configs/gemm_nvfp4.json, the decode
// kernel, takes M <= 16): judged by GB/s against the copy roof. Past it a problem is a GEMM.
constexpr int64_t kDecodeRows = 16;
bool streams_weights(const Problem& p) { return p.dims.at("M") <= kDecodeRows; }

using elementwise::element_bytes;
using elementwise::element_name;

// What a kernel must move at the least: A, W and its scales read once, C written.
int64_t traffic_bytes(const Problem& p) {
  const Shape s(p);
  const int64_t eb = element_bytes(p.dtype);
  return s.m * s.k * eb + s.weight_bytes() + s.scale_bytes() + 4 + s.m * s.n * eb;
}

void nvfp4_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                     const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) {
  const Shape s(p);
  for (const char* name : {"A", "W", "W_scales", "tensor_scale", "C"}) out.add_pointer(operand(operands, name, p));
  out.add(static_cast<int>(s.m));
  out.add(static_cast<int>(s.n));
  out.add(static_cast<int>(s.k));
  // A or W replaced by its TMA descriptor where the config names it: A as M x K 16-bit elements,
  // W as N rows of K/2 bytes.
  for (const TensorMapSpec& t : tensor_maps) {
    if (t.operand == "A") {
      out.set(0, cuda::encode_matrix(t, operand(operands, "A", p), cuda::tensor_map_type(p.dtype), 2, s.m, s.k));
    } else if (t.operand == "W") {
      out.set(1, cuda::encode_matrix(t, operand(operands, "W", p), CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, s.n, s.k / 2));
    } else {
      throw Error("gemm_nvfp4 has no operand " + t.operand + " to pass as a tensor map");
    }
  }
  out.add_pointer(operand(operands, "splitk_partials", p));
  out.add_pointer(operand(operands, "splitk_arrivals", p));
}

// A float's 16-bit pattern in `dtype` (exact for the dequantized weights: at most 6 significant
// bits, within both types' range).
uint16_t to_16bit(float x, const std::string& dtype) {
  uint16_t bits = 0;
  if (dtype == "bf16") {
    const __nv_bfloat16 v = __float2bfloat16_rn(x);
    std::memcpy(&bits, &v, 2);
  } else {
    const __half v = __float2half_rn(x);
    std::memcpy(&bits, &v, 2);
  }
  return bits;
}

class Nvfp4Workload : public Workload {
 public:
  Nvfp4Workload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), problem_(p), dtype_(p.dtype), shape_(p) {
    if (streams_weights(p)) copy_.emplace(traffic_bytes(p));
    const int64_t eb = element_bytes(dtype_);
    const int64_t weights = shape_.n * shape_.k;
    a_ = buffers_.add("A", BufferRole::input, shape_.m * shape_.k * eb);
    w_ = buffers_.add("W", BufferRole::input, shape_.weight_bytes());
    w_scales_ = buffers_.add("W_scales", BufferRole::input, shape_.scale_bytes());
    tensor_scale_ = buffers_.add("tensor_scale", BufferRole::input, 16);
    // The baseline's 16-bit weights: read by cuBLAS only, never by a candidate.
    w16_ = buffers_.add("W dequantized (baseline)", BufferRole::input, weights * eb);
    c_ = buffers_.add("C", BufferRole::output, shape_.m * shape_.n * eb);
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, shape_.m * shape_.n * sizeof(float)));
    partials_ = buffers_.add("split-K partials", BufferRole::workspace, kSplitKPartialBytes);
    arrivals_ = buffers_.add("split-K arrival counters", BufferRole::counters, kSplitKCounters * sizeof(unsigned));
    gpu_.fill_normal(a_, dtype_, shape_.m * shape_.k, seed, 1.0f);

    // W: drawn on the device, quantized on the host as `ktune quantize` does.
    std::vector<float> host(static_cast<size_t>(weights));
    {
      cuda::DeviceBuffer w32(weights * sizeof(float));
      gpu_.fill_normal(w32.get(), "fp32", weights, seed + 1,
                       static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape_.k))));
      KTUNE_CUDA(cudaMemcpyAsync(host.data(), w32.get(), weights * sizeof(float), cudaMemcpyDeviceToHost,
                                 gpu_.stream()));
      KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    }
    quant::Quantized q = quant::quantize(quant::Format::nvfp4, host, shape_.n, shape_.k);
    tensor_scale_value_ = q.tensor_scale;
    upload(w_, q.values.data(), q.values.size());
    upload(w_scales_, q.scale_bytes.data(), q.scale_bytes.size());
    upload(tensor_scale_, &tensor_scale_value_, sizeof(float));
    // e2m1 * group scale, exact in fp32 and in the 16-bit dtype; the tensor scale is alpha below.
    q.tensor_scale = 1.0f;
    host = quant::dequantize(q);
    {
      std::vector<uint16_t> w16(host.size());
      for (size_t i = 0; i < host.size(); ++i) w16[i] = to_16bit(host[i], dtype_);
      upload(w16_, w16.data(), w16.size() * 2);
    }
    reference(host);
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    args_.clear();
    nvfp4_arguments(problem_,
                    {{"A", a_}, {"W", w_}, {"W_scales", w_scales_}, {"tensor_scale", tensor_scale_}, {"C", c_},
                     {"splitk_partials", partials_}, {"splitk_arrivals", arrivals_}},
                    tensor_maps, args_);
    return args_.as_vector();
  }

  ErrorStats check_output(const Tolerance& t) override {
    return gpu_.compare(c_, dtype_, ref_, shape_.m * shape_.n, t.atol, t.rtol);
  }

  std::vector<BaselineInfo> baselines() const override {
    std::vector<BaselineInfo> out = {
        {"cublas", fmt::format("cublasGemmEx ({} weights, the nvfp4 ones dequantized; fp32 accumulate)", dtype_)}};
    if (copy_) out.push_back(copy_->info());  // decode only: prefill is judged by TFLOPS
    return out;
  }

  void run_baseline(size_t which) override {
    if (which == 1) {
      copy_->run(gpu_.stream());
      return;
    }
    const cudaDataType_t type = dtype_ == "bf16" ? CUDA_R_16BF : CUDA_R_16F;
    gemm(w16_, a_, type, c_, type, CUBLAS_COMPUTE_32F, tensor_scale_value_);
  }

 private:
  void upload(void* device, const void* host, size_t bytes) {
    KTUNE_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, gpu_.stream()));
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));  // the host copy may go out of scope
  }

  // Row-major C = alpha * A * W^T is column-major C^T = alpha * W * A^T, W and A both K-contiguous.
  void gemm(const void* w, const void* a, cudaDataType_t ab_type, void* c, cudaDataType_t c_type,
            cublasComputeType_t compute, float alpha) {
    const float beta = 0.0f;
    const int n = static_cast<int>(shape_.n), m = static_cast<int>(shape_.m), k = static_cast<int>(shape_.k);
    KTUNE_CUBLAS(cublasGemmEx(gpu_.cublas(), CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &alpha, w, ab_type, k, a, ab_type, k,
                              &beta, c, c_type, n, compute, CUBLAS_GEMM_DEFAULT));
  }

  // The pedantic fp32 GEMM of A's exact values and W's (e2m1 * group scale, times the tensor
  // scale as alpha); the fp32 copies live only while it runs.
  void reference(const std::vector<float>& w_unit) {
    cuda::DeviceBuffer a32(shape_.m * shape_.k * sizeof(float)), w32(w_unit.size() * sizeof(float));
    gpu_.to_fp32(a_, dtype_, a32.as<float>(), shape_.m * shape_.k);
    upload(w32.get(), w_unit.data(), w_unit.size() * sizeof(float));
    gemm(w32.get(), a32.get(), CUDA_R_32F, ref_, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, tensor_scale_value_);
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
  }

  GpuContext& gpu_;
  Problem problem_;
  std::string dtype_;
  Shape shape_;
  std::optional<CopyRoof> copy_;
  void *a_ = nullptr, *w_ = nullptr, *w_scales_ = nullptr, *tensor_scale_ = nullptr, *w16_ = nullptr, *c_ = nullptr;
  void *partials_ = nullptr, *arrivals_ = nullptr;
  float* ref_ = nullptr;
  float tensor_scale_value_ = 1.0f;
  KernelArguments args_;
};

class GemmNvfp4Family : public KernelFamily {
 public:
  std::string_view name() const override { return "gemm_nvfp4"; }
  std::string_view summary() const override {
    return "C = A * W^T with NVFP4 weights (e2m1, e4m3 scale per 16, fp32 tensor scale) and bf16/fp16 activations, "
           "decode (M <= 16) and prefill (Hopper); baseline cuBLAS with 16-bit weights";
  }
  ProblemSchema schema() const override {
    return {{{"M", "rows of A and C (tokens)", ""},
             {"N", "rows of the weight W, columns of C", ""},
             {"K", "columns of A and W (a multiple of 32)", "N"}},
            {"bf16", "fp16"},
            {},
            "the activations' and C's type; W is always nvfp4"};
  }
  Bound bound() const override { return Bound::memory; }
  Bound problem_bound(const Problem& p) const override {
    return p.dims.count("M") && !streams_weights(p) ? Bound::compute : Bound::memory;
  }
  std::vector<std::string_view> default_configs() const override {
    return {"configs/gemm_nvfp4.json", "configs/gemm_nvfp4_wgmma.json"};
  }
  std::vector<std::string> tensor_map_operands() const override { return {"A", "W"}; }
  std::vector<std::string> context_names() const override {
    std::vector<std::string> names = {"M", "N", "K"};
    for (std::string& n : elementwise::device_context_names()) names.push_back(std::move(n));
    names.insert(names.end(), {"l2_bytes", "splitk_partial_bytes", "splitk_counters"});
    return names;
  }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT"}; }

  void validate(const Problem& p) const override {
    for (const char* d : {"M", "N", "K"}) {
      const int64_t v = p.dims.at(d);
      if (v <= 0) throw ConfigError(fmt::format("{} must be >= 1 (got {})", d, v));
      if (v > INT32_MAX) throw ConfigError(fmt::format("{} = {} is larger than 2^31-1", d, v));
    }
    if (p.dims.at("K") % 32 != 0)
      throw ConfigError(fmt::format("K = {} is not a multiple of 32: a weight row must be whole groups of 16 and "
                                    "whole 16-byte pieces of packed nibbles",
                                    p.dims.at("K")));
  }

  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Bindings b = elementwise::device_context(p.dtype, arch);
    for (const char* d : {"M", "N", "K"}) b[d] = p.dims.at(d);
    b["l2_bytes"] = arch.l2_bytes;
    b["splitk_partial_bytes"] = kSplitKPartialBytes;
    b["splitk_counters"] = kSplitKCounters;
    return b;
  }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return {{"ELEMENT", element_name(p.dtype)}};
  }

  Cost cost(const Problem& p) const override {
    const Shape s(p);
    return {2.0 * s.m * s.n * s.k, static_cast<double>(traffic_bytes(p))};
  }

  int64_t device_bytes(const Problem& p) const override {
    const Shape s(p);
    const int64_t eb = element_bytes(p.dtype);
    // The workload's buffers, the fp32 copies of the reference (while it runs) and the copy roof.
    return traffic_bytes(p) + s.n * s.k * eb + 4 * s.m * s.n + 4 * (s.n * s.k + s.m * s.k) + kSplitKPartialBytes +
           4 * kSplitKCounters + (streams_weights(p) ? CopyRoof::device_bytes(traffic_bytes(p)) : 0) +
           guard_overhead(9);
  }

  Tolerance default_tolerance(const std::string& dtype) const override {
    // The dequantized weights are exact in the dtype: only the output's rounding and the order of
    // fp32 accumulation separate a correct kernel from the reference (as gemm's bounds).
    if (dtype == "fp16") return {5e-3, 5e-3, 1e-3};
    return {2e-2, 2e-2, 5e-3};
  }

  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<Nvfp4Workload>(p, gpu, seed);
  }

  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    const Shape s(p);
    const int64_t eb = element_bytes(p.dtype);
    return {{"A", "M x K " + p.dtype + ", row-major", s.m * s.k * eb},
            {"W", "N x K e2m1, row-major, two a byte (element 2i in bits 0-3 of byte i)", s.weight_bytes()},
            {"W_scales", "N x K/16 e4m3 group scales, row-major", s.scale_bytes()},
            {"tensor_scale", "one float: W = e2m1 * group scale * tensor_scale", 4},
            {"C", "M x N " + p.dtype + ", row-major (written)", s.m * s.n * eb},
            {"splitk_partials", "split-K's fp32 partial sums", kSplitKPartialBytes, true},
            {"splitk_arrivals", "split-K's arrival counters (zero between launches)",
             static_cast<int64_t>(kSplitKCounters * sizeof(unsigned)), true}};
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    nvfp4_arguments(p, operands, tensor_maps, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig& config) const override {
    const std::string t = element_name(p.dtype);
    return {operand_parameter(config, "A", "const " + t + "*"),
            operand_parameter(config, "W", "const unsigned char*"),
            {"const unsigned char*", "W_scales"},
            {"const float*", "tensor_scale"},
            {t + "*", "C"},
            {"int", "M"},
            {"int", "N"},
            {"int", "K"},
            {"float*", "partials", /*may_end_before=*/true},
            {"unsigned*", "arrivals"}};
  }
};

}  // namespace

const KernelFamily& gemm_nvfp4_family() {
  static const GemmNvfp4Family family;
  return family;
}

}  // namespace ktune
