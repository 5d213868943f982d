// layernorm_backward: LayerNorm's gradients for a row-major rows x cols tensor (fp16, bf16,
// fp32): dX from dY, X, W and the forward pass's per-row mean and rstd (fp32), and dW, dB summed
// over the rows (kernels/layernorm_backward.cu has the formulas). X ~ 2 N(0,1), W and dY ~ N(0,1);
// mean and rstd come from the fp64 forward reference (eps 1e-5), so they are the statistics a
// forward pass would have kept. The reference is fp64 (kernels/reference.cu): a block per row for
// dX, a thread per column for dW and dB. The baseline is the copy roof: ktune does not yet call
// cuDNN's backward normalization node.
//
// Kernel arguments: const T* X, const T* W, const T* dY, const float* mean, const float* rstd,
// T* dX, T* dW, T* dB, float* acc (dW's sums then dB's, each half cols rounded up to a multiple
// of 4 floats so both stay 16-byte aligned; zero at every launch and left zero),
// unsigned* arrivals (cols / 128 + 1 counters, one a stripe of columns; zero at every launch and
// left zero), long long rows, int cols.
#include <fmt/format.h>

#include <cmath>
#include <memory>

#include "cuda/check.hpp"
#include "families/elementwise.hpp"
#include "families/family.hpp"
#include "gpu/copy_roof.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using elementwise::element_bytes;

// The minimum traffic: X and dY read, dX written, W read, dW and dB written, mean and rstd read.
int64_t traffic_bytes(const Problem& p) {
  const int64_t rows = p.dims.at("rows"), cols = p.dims.at("cols"), e = element_bytes(p.dtype);
  return 3 * rows * cols * e + 3 * cols * e + 2 * rows * int64_t{sizeof(float)};
}

// The kernel's longest row: its dW/dB partials, 8 bytes a column, in one block's shared memory on
// every sm_80+ device (configs/layernorm_backward.json).
constexpr int64_t kMaxCols = 16384;

class LayerNormBackwardWorkload : public Workload {
 public:
  LayerNormBackwardWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), dtype_(p.dtype), rows_(p.dims.at("rows")), cols_(static_cast<int>(p.dims.at("cols"))),
        copy_(traffic_bytes(p)) {
    const int64_t n = rows_ * cols_, e = element_bytes(dtype_), f = sizeof(float);
    x_ = buffers_.add("X", BufferRole::input, n * e);
    w_ = buffers_.add("W", BufferRole::input, cols_ * e);
    dy_ = buffers_.add("dY", BufferRole::input, n * e);
    mean_ = static_cast<float*>(buffers_.add("mean", BufferRole::input, rows_ * f));
    rstd_ = static_cast<float*>(buffers_.add("rstd", BufferRole::input, rows_ * f));
    dx_ = buffers_.add("dX", BufferRole::output, n * e);
    dw_ = buffers_.add("dW", BufferRole::output, cols_ * e);
    db_ = buffers_.add("dB", BufferRole::output, cols_ * e);
    acc_ = buffers_.add("dW/dB accumulators", BufferRole::counters, 2 * ((cols_ + 3) / 4 * 4) * f);
    // One counter a stripe of columns (a quad a thread: at most cdiv(cols / 4, 32) stripes).
    arrivals_ = buffers_.add("arrival counters", BufferRole::counters, (cols_ / 128 + 1) * sizeof(unsigned));
    ref_dx_ = static_cast<float*>(buffers_.add("reference dX", BufferRole::reference, n * f));
    ref_dw_ = static_cast<float*>(buffers_.add("reference dW", BufferRole::reference, cols_ * f));
    ref_db_ = static_cast<float*>(buffers_.add("reference dB", BufferRole::reference, cols_ * f));
    gpu_.fill_normal(x_, dtype_, n, seed, 2.0f);
    gpu_.fill_normal(w_, dtype_, cols_, seed + 1, 1.0f);
    gpu_.fill_normal(dy_, dtype_, n, seed + 2, 1.0f);

    const char* t = elementwise::element_name(dtype_);
    long long rows = rows_, cols = cols_;
    // The forward statistics (its Y lands in ref_dx_, overwritten below), then the gradients.
    {
      CUfunction f = gpu_.kernel("kernels/reference.cu", fmt::format("ktune_ref_norm<{}>", t));
      void* no_bias = nullptr;
      float eps = 1e-5f;
      int rms = 0;
      void* args[] = {&x_, &w_, &no_bias, &ref_dx_, &mean_, &rstd_, &rows, &cols, &eps, &rms};
      gpu_.launch(f, block_per_row(), args);
    }
    {
      CUfunction f = gpu_.kernel("kernels/reference.cu", fmt::format("ktune_ref_layernorm_bwd_dx<{}>", t));
      void* args[] = {&x_, &w_, &dy_, &mean_, &rstd_, &ref_dx_, &rows, &cols};
      gpu_.launch(f, block_per_row(), args);
    }
    {
      CUfunction f = gpu_.kernel("kernels/reference.cu", fmt::format("ktune_ref_layernorm_bwd_dwdb<{}>", t));
      void* args[] = {&x_, &dy_, &mean_, &rstd_, &ref_dw_, &ref_db_, &rows, &cols};
      Launch l;
      l.block[0] = 128;
      l.grid[0] = (cols_ + 127) / 128;
      gpu_.launch(f, l, args);
    }
    KTUNE_CUDA(cudaGetLastError());
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    if (!tensor_maps.empty()) throw Error("layernorm_backward takes no tensor maps");
    return {&x_, &w_, &dy_, &mean_, &rstd_, &dx_, &dw_, &db_, &acc_, &arrivals_, &rows_, &cols_};
  }
  // dX against the dtype's tolerance. dW and dB are sums over the rows, of size about sqrt(rows),
  // and so is the fp32 error of summing them in an open order: their absolute bound scales so.
  ErrorStats check_output(const Tolerance& t) override {
    ErrorStats out = gpu_.compare(dx_, dtype_, ref_dx_, rows_ * cols_, t.atol, t.rtol);
    const double sum_atol = t.atol * std::sqrt(static_cast<double>(rows_));
    out = worst_of(out, gpu_.compare(dw_, dtype_, ref_dw_, cols_, sum_atol, t.rtol));
    return worst_of(out, gpu_.compare(db_, dtype_, ref_db_, cols_, sum_atol, t.rtol));
  }
  std::vector<BaselineInfo> baselines() const override { return {copy_.info()}; }
  void run_baseline(size_t) override { copy_.run(gpu_.stream()); }

 private:
  Launch block_per_row() const {
    Launch l;
    l.block[0] = 256;
    l.grid[0] = rows_;
    return l;
  }

  GpuContext& gpu_;
  std::string dtype_;
  long long rows_;
  int cols_;
  CopyRoof copy_;
  void *x_ = nullptr, *w_ = nullptr, *dy_ = nullptr, *dx_ = nullptr, *dw_ = nullptr, *db_ = nullptr;
  void *acc_ = nullptr, *arrivals_ = nullptr;
  float *mean_ = nullptr, *rstd_ = nullptr, *ref_dx_ = nullptr, *ref_dw_ = nullptr, *ref_db_ = nullptr;
};

class LayerNormBackwardFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "layernorm_backward"; }
  std::string_view summary() const override {
    return "LayerNorm's dX, dW and dB from dY, X, W and the forward mean and rstd; baseline the copy roof";
  }
  ProblemSchema schema() const override {
    return {{{"rows", "rows of X and dY", ""}, {"cols", fmt::format("elements per row (at most {})", kMaxCols), ""}},
            {"fp16", "bf16", "fp32"},
            {},
            "X, W, dY and the gradients in the dtype; math and the statistics in fp32"};
  }
  Bound bound() const override { return Bound::memory; }
  std::vector<std::string_view> default_configs() const override { return {"configs/layernorm_backward.json"}; }
  std::vector<std::string> context_names() const override { return elementwise::row_context_names(); }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT", "COLS"}; }
  void validate(const Problem& p) const override {
    elementwise::validate_rows(p, INT32_MAX, INT64_MAX);
    if (p.dims.at("cols") > kMaxCols)
      throw ConfigError(fmt::format("cols = {}: layernorm_backward's kernel holds rows of at most {} columns",
                                    p.dims.at("cols"), kMaxCols));
  }
  Bindings context(const Problem& p, const ArchFacts& arch) const override { return elementwise::row_context(p, arch); }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return elementwise::row_placeholders(p);
  }
  Cost cost(const Problem& p) const override {
    // xhat, g, two row sums, dx, two column sums: about 12 operations an element.
    return {12.0 * p.dims.at("rows") * p.dims.at("cols"), static_cast<double>(traffic_bytes(p))};
  }
  int64_t device_bytes(const Problem& p) const override {
    const int64_t n = p.dims.at("rows") * p.dims.at("cols");
    return traffic_bytes(p) + 4 * n + 5 * 4 * p.dims.at("cols") + CopyRoof::device_bytes(traffic_bytes(p)) +
           guard_overhead(13);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // For dX, which is O(1): a rounding of the output type (check_output scales atol for dW, dB).
    if (dtype == "fp16") return {1e-3, 2e-3, 1e-3};
    if (dtype == "bf16") return {8e-3, 1.6e-2, 8e-3};
    return {1e-4, 1e-4, 1e-5};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<LayerNormBackwardWorkload>(p, gpu, seed);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    const std::string t = elementwise::element_name(p.dtype);
    return {{"const " + t + "*", "X"},   {"const " + t + "*", "W"},   {"const " + t + "*", "dY"},
            {"const float*", "mean"},    {"const float*", "rstd"},    {t + "*", "dX"},
            {t + "*", "dW"},             {t + "*", "dB"},             {"float*", "acc"},
            {"unsigned*", "arrivals"},   {"long long", "rows"},       {"int", "cols"}};
  }
};

}  // namespace

const KernelFamily& layernorm_backward_family() {
  static const LayerNormBackwardFamily family;
  return family;
}

}  // namespace ktune
