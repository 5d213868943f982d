// bias_gelu_dropout: Y = dropout(GELU(X + bias)) over a row-major rows x cols tensor (fp16, bf16,
// fp32), bias (cols) broadcast over the rows, exact (erf) GELU in fp32, dropout with probability
// p (the `p` option) and the workload's seed: the epilogue of an MLP's first linear layer in
// training. The mask rule is in kernels/bias_gelu_dropout.cu (a 16-bit half of Philox4x32-10 by
// flat element index, eight elements a call, so it never depends on a configuration). X ~ N(0,1)
// and bias ~ N(0,1); the reference (kernels/reference.cu) computes GELU in fp64 and the mask with
// its own cuRAND Philox calls.
// The baseline is the copy roof, as for add: no library has this fused op.
//
// Kernel arguments: const T* X, const T* bias, T* Y, long long rows, int cols, float p,
// unsigned long long seed.
#include <fmt/format.h>

#include <memory>

#include "cuda/check.hpp"
#include "families/dropout_rng.hpp"
#include "families/elementwise.hpp"
#include "families/family.hpp"
#include "gpu/copy_roof.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using elementwise::element_bytes;

// Read X, write Y, read bias once.
int64_t traffic_bytes(const Problem& p) {
  const int64_t e = element_bytes(p.dtype), rows = p.dims.at("rows"), cols = p.dims.at("cols");
  return 2 * rows * cols * e + cols * e;
}

class BiasGeluDropoutWorkload : public Workload {
 public:
  BiasGeluDropoutWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), dtype_(p.dtype), rows_(p.dims.at("rows")), cols_(static_cast<int>(p.dims.at("cols"))),
        p_(dropout::parse_p(p.option("p"))), seed_(seed), copy_(traffic_bytes(p)) {
    const int64_t n = rows_ * cols_;
    x_ = buffers_.add("X", BufferRole::input, n * element_bytes(dtype_));
    bias_ = buffers_.add("bias", BufferRole::input, cols_ * element_bytes(dtype_));
    y_ = buffers_.add("Y", BufferRole::output, n * element_bytes(dtype_));
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, n * sizeof(float)));
    gpu_.fill_normal(x_, dtype_, n, seed, 1.0f);
    gpu_.fill_normal(bias_, dtype_, cols_, seed + 1, 1.0f);
    CUfunction f = gpu_.kernel("kernels/reference.cu",
                               fmt::format("ktune_ref_bias_gelu_dropout<{}>", elementwise::element_name(dtype_)));
    Launch l;
    l.block[0] = 256;
    l.grid[0] = std::min<int64_t>((n + 255) / 256, 65535);
    long long rows = rows_, cols = cols_;
    void* args[] = {&x_, &bias_, &ref_, &rows, &cols, &p_, &seed_};
    gpu_.launch(f, l, args);
    KTUNE_CUDA(cudaGetLastError());
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    if (!tensor_maps.empty()) throw Error("bias_gelu_dropout takes no tensor maps");
    return {&x_, &bias_, &y_, &rows_, &cols_, &p_, &seed_};
  }
  ErrorStats check_output(const Tolerance& t) override {
    return gpu_.compare(y_, dtype_, ref_, rows_ * cols_, t.atol, t.rtol);
  }
  std::vector<BaselineInfo> baselines() const override { return {copy_.info()}; }
  void run_baseline(size_t) override { copy_.run(gpu_.stream()); }

 private:
  GpuContext& gpu_;
  std::string dtype_;
  long long rows_;
  int cols_;
  float p_;
  unsigned long long seed_;
  CopyRoof copy_;
  void *x_ = nullptr, *bias_ = nullptr, *y_ = nullptr;
  float* ref_ = nullptr;
};

class BiasGeluDropoutFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "bias_gelu_dropout"; }
  std::string_view summary() const override {
    return "Y = dropout(GELU(X + bias)), bias broadcast over rows, Philox mask by element index; baseline the copy roof";
  }
  ProblemSchema schema() const override {
    return {{{"rows", "rows of X (tokens)", ""}, {"cols", "elements per row (features); bias has this many", ""}},
            {"fp16", "bf16", "fp32"},
            {{"p",
              "dropout probability: an element is zeroed with probability p, the others scaled by 1/(1-p)",
              {"0.1", "0.2", "0.5"},
              "0.1"}},
            "math in fp32 (exact erf GELU); the output is rounded to the dtype"};
  }
  Bound bound() const override { return Bound::memory; }
  std::vector<std::string_view> default_configs() const override { return {"configs/bias_gelu_dropout.json"}; }
  std::vector<std::string> context_names() const override { return elementwise::row_context_names(); }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT"}; }
  void validate(const Problem& p) const override {
    elementwise::validate_rows(p, INT64_MAX, INT32_MAX);
    dropout::parse_p(p.option("p"));
  }
  Bindings context(const Problem& p, const ArchFacts& arch) const override { return elementwise::row_context(p, arch); }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return {{"ELEMENT", elementwise::element_name(p.dtype)}};
  }
  Cost cost(const Problem& p) const override {
    // About 20 floating-point operations an element: the bias add, Phi's polynomial (a dozen
    // FMAs), GELU's multiplies and an add, the dropout scale. Philox's integer work (about 7 SASS
    // instructions an element, 10 rounds per 8 elements) is not counted as flops.
    return {20.0 * p.dims.at("rows") * p.dims.at("cols"), static_cast<double>(traffic_bytes(p))};
  }
  int64_t device_bytes(const Problem& p) const override {
    return traffic_bytes(p) + 4 * p.dims.at("rows") * p.dims.at("cols") + CopyRoof::device_bytes(traffic_bytes(p)) +
           guard_overhead(4);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // rtol: a few roundings of the output type (half an ulp is 2^-11 fp16, 2^-8 bf16; fp32 adds
    // Phi's error, kernels/normal_cdf.cuh: ~1 ulp for z >= 0, up to ~43 ulp = 5e-6 relative for
    // z < 0, and a few roundings). atol: for z < 0 the values are small (|GELU| < 0.17) and past
    // z = -5.5 they are flushed to 0 (the exact value is below 1.1e-7 there, doubled by the
    // 1/(1-p) scale at p = 0.5), as 1 + erff(z/sqrt 2) did; 2e-6 covers that, the relative error
    // times those small values, and fp16's subnormal spacing.
    // A mask mismatch is caught by this same compare: an element dropped where the reference keeps
    // it is off by its whole value, which exceeds atol / (1 - rtol) unless |GELU| < ~2e-6 (z
    // within 4e-6 of 0 or below about -5: ~2e-4 of the elements, so one stray element there could
    // pass, but any wrong rule, seed, half or counter mismatches a fraction ~2p(1-p) of them).
    if (dtype == "fp16") return {2e-6, 1e-3, 5e-4};
    if (dtype == "bf16") return {2e-6, 8e-3, 4e-3};
    return {2e-6, 1e-5, 2e-6};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<BiasGeluDropoutWorkload>(p, gpu, seed);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    const std::string t = elementwise::element_name(p.dtype);
    return {{"const " + t + "*", "X"}, {"const " + t + "*", "bias"}, {t + "*", "Y"},   {"long long", "rows"},
            {"int", "cols"},           {"float", "p"},                {"unsigned long long", "seed"}};
  }
};

}  // namespace

const KernelFamily& bias_gelu_dropout_family() {
  static const BiasGeluDropoutFamily family;
  return family;
}

}  // namespace ktune
