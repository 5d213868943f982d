// layernorm and rmsnorm forward: each row of a row-major rows x cols tensor X (fp16, bf16, fp32)
// normalized in fp32 and scaled by a weight W (LayerNorm: and shifted by a bias B), both cols
// long in X's dtype; the per-row statistics are written in fp32 (LayerNorm: mean and rstd;
// RMSNorm: rstd), as training keeps them for the backward pass (kernels/norm.cu has the formulas).
// X ~ 2 N(0,1), W and B ~ N(0,1), all random; the reference is computed in fp64 by
// kernels/reference.cu, one block per row. Baselines: cuDNN's graph-API normalization node
// (training phase, so it writes the same statistics) where cuDNN loads, paired with candidates;
// and the copy roof beside it.
//
// Kernel arguments: const T* X, const T* W, const T* B, T* Y, float* mean, float* rstd,
// long long rows, int cols, float eps. RMSNorm's B and mean are null.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/cudnn.hpp"
#include "families/elementwise.hpp"
#include "families/cudnn_baseline.hpp"
#include "families/family.hpp"
#include "gpu/copy_roof.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using cuda::CudnnNormKind;
using elementwise::element_bytes;

bool is_rms(CudnnNormKind kind) { return kind == CudnnNormKind::rms_norm; }

// The minimum traffic: X read and Y written once, W (and B) read once, the statistics written.
int64_t traffic_bytes(CudnnNormKind kind, const Problem& p) {
  const int64_t rows = p.dims.at("rows"), cols = p.dims.at("cols"), e = element_bytes(p.dtype);
  const int64_t params = is_rms(kind) ? 1 : 2;  // W (and B)
  const int64_t stats = is_rms(kind) ? 1 : 2;   // rstd (and mean)
  return 2 * rows * cols * e + params * cols * e + stats * rows * int64_t{sizeof(float)};
}

float parse_eps(const Problem& p) { return std::stof(p.option("eps")); }

// The statistics are fp32 in every dtype: a few fp32 roundings of sums over a row.
constexpr double kStatsAtol = 1e-5, kStatsRtol = 1e-4;

// The argument list of every norm kernel, from the buffers by name: the workload's and the
// runtime's launches build it here, so they cannot drift. RMSNorm has no B and no mean.
void norm_arguments(CudnnNormKind kind, const Problem& p, const std::map<std::string, void*>& operands,
                    const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) {
  if (!tensor_maps.empty()) throw Error(fmt::format("{} takes no tensor maps", to_string(kind)));
  const bool rms = is_rms(kind);
  out.add_pointer(operand(operands, "X", p));
  out.add_pointer(operand(operands, "W", p));
  out.add_pointer(rms ? nullptr : operand(operands, "B", p));
  out.add_pointer(operand(operands, "Y", p));
  out.add_pointer(rms ? nullptr : operand(operands, "mean", p));
  out.add_pointer(operand(operands, "rstd", p));
  out.add(static_cast<long long>(p.dims.at("rows")));
  out.add(static_cast<int>(p.dims.at("cols")));
  out.add(parse_eps(p));
}

class NormWorkload : public Workload {
 public:
  NormWorkload(CudnnNormKind kind, const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), kind_(kind), gpu_(gpu), problem_(p), dtype_(p.dtype), rows_(p.dims.at("rows")),
        cols_(static_cast<int>(p.dims.at("cols"))), eps_(parse_eps(p)), copy_(traffic_bytes(kind, p)),
        cudnn_(gpu.stream(), kind, p.dtype, p.dims.at("rows"), p.dims.at("cols"), /*with_bias=*/!is_rms(kind)) {
    const int64_t n = rows_ * cols_, e = element_bytes(dtype_);
    x_ = buffers_.add("X", BufferRole::input, n * e);
    w_ = buffers_.add("W", BufferRole::input, cols_ * e);
    if (!is_rms(kind_)) b_ = buffers_.add("B", BufferRole::input, cols_ * e);
    y_ = buffers_.add("Y", BufferRole::output, n * e);
    if (!is_rms(kind_)) mean_ = static_cast<float*>(buffers_.add("mean", BufferRole::output, rows_ * sizeof(float)));
    rstd_ = static_cast<float*>(buffers_.add("rstd", BufferRole::output, rows_ * sizeof(float)));
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, n * sizeof(float)));
    ref_rstd_ = static_cast<float*>(buffers_.add("reference rstd", BufferRole::reference, rows_ * sizeof(float)));
    if (!is_rms(kind_))
      ref_mean_ = static_cast<float*>(buffers_.add("reference mean", BufferRole::reference, rows_ * sizeof(float)));
    if (cudnn_.op && cudnn_.op->workspace_bytes() > 0)
      cudnn_workspace_ = buffers_.add("cuDNN workspace", BufferRole::workspace, cudnn_.op->workspace_bytes());
    gpu_.fill_normal(x_, dtype_, n, seed, 2.0f);
    gpu_.fill_normal(w_, dtype_, cols_, seed + 1, 1.0f);
    if (b_) gpu_.fill_normal(b_, dtype_, cols_, seed + 2, 1.0f);

    CUfunction f = gpu_.kernel("kernels/reference.cu",
                               fmt::format("ktune_ref_norm<{}>", elementwise::element_name(dtype_)));
    long long rows = rows_, cols = cols_;
    int rms = is_rms(kind_) ? 1 : 0;
    void* args[] = {&x_, &w_, &b_, &ref_, &ref_mean_, &ref_rstd_, &rows, &cols, &eps_, &rms};
    Launch l;
    l.block[0] = 256;
    l.grid[0] = rows_;
    gpu_.launch(f, l, args);
    KTUNE_CUDA(cudaGetLastError());
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    std::map<std::string, void*> operands = {{"X", x_}, {"W", w_}, {"Y", y_}, {"rstd", rstd_}};
    if (!is_rms(kind_)) operands.insert({{"B", b_}, {"mean", mean_}});
    args_.clear();
    norm_arguments(kind_, problem_, operands, tensor_maps, args_);
    return args_.as_vector();
  }
  // Y against the dtype's tolerance; the fp32 statistics against their own, fixed one.
  ErrorStats check_output(const Tolerance& t) override {
    ErrorStats out = gpu_.compare(y_, dtype_, ref_, rows_ * cols_, t.atol, t.rtol);
    ErrorStats rstd = gpu_.compare(rstd_, "fp32", ref_rstd_, rows_, kStatsAtol, kStatsRtol);
    rstd.norm_rel = 0;  // the statistics' elementwise bound is the stricter one
    out = worst_of(out, rstd);
    if (mean_) {
      ErrorStats mean = gpu_.compare(mean_, "fp32", ref_mean_, rows_, kStatsAtol, kStatsRtol);
      mean.norm_rel = 0;
      out = worst_of(out, mean);
    }
    return out;
  }
  std::vector<BaselineInfo> baselines() const override {
    std::vector<BaselineInfo> out;
    if (cudnn_.op)
      out.push_back({"cudnn", fmt::format("cuDNN {} graph {} forward (training, {}, {})", cuda::cudnn_version_text(),
                                          is_rms(kind_) ? "RMSNorm" : "LayerNorm", dtype_, cudnn_.op->engine())});
    out.push_back(copy_.info());
    return out;
  }
  void run_baseline(size_t which) override {
    if (cudnn_.op && which == 0) {
      cudnn_.op->run(x_, w_, b_, eps_, y_, mean_, rstd_, gpu_.stream(), cudnn_workspace_);
      return;
    }
    copy_.run(gpu_.stream());
  }

 private:
  CudnnNormKind kind_;
  GpuContext& gpu_;
  Problem problem_;
  std::string dtype_;
  long long rows_;
  int cols_;
  float eps_;
  CopyRoof copy_;
  CudnnBaseline<cuda::CudnnNorm> cudnn_;
  void *x_ = nullptr, *w_ = nullptr, *b_ = nullptr, *y_ = nullptr, *cudnn_workspace_ = nullptr;
  float *mean_ = nullptr, *rstd_ = nullptr, *ref_ = nullptr, *ref_mean_ = nullptr, *ref_rstd_ = nullptr;
  KernelArguments args_;  // what kernel_args() points into
};

class NormFamily : public KernelFamily {
 public:
  explicit NormFamily(CudnnNormKind kind) : kind_(kind) {}
  std::string_view name() const override { return is_rms(kind_) ? "rmsnorm" : "layernorm"; }
  std::string_view summary() const override {
    return is_rms(kind_) ? "Y = X * rstd * W per row, fp32 math, rstd kept; baselines cuDNN and the copy roof"
                         : "Y = (X - mean) * rstd * W + B per row, fp32 math, mean and rstd kept; baselines cuDNN "
                           "and the copy roof";
  }
  ProblemSchema schema() const override {
    return {{{"rows", "rows of X (each is normalized)", ""},
             {"cols", is_rms(kind_) ? "elements per row (W is this long)" : "elements per row (W and B are this long)", ""}},
            {"fp16", "bf16", "fp32"},
            {{"eps", "added to the variance (mean square) before the square root", {"1e-5", "1e-6"}, "1e-5"}},
            "X, W, B and Y in the dtype; math and the statistics in fp32"};
  }
  Bound bound() const override { return Bound::memory; }
  std::vector<std::string_view> default_configs() const override {
    if (is_rms(kind_)) return {"configs/rmsnorm.json", "configs/rmsnorm_looped.json", "configs/rmsnorm_cluster.json"};
    return {"configs/layernorm.json", "configs/layernorm_looped.json", "configs/layernorm_cluster.json"};
  }
  std::vector<std::string> context_names() const override { return elementwise::row_context_names(); }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT", "COLS"}; }
  // One reference block per row, and int columns in the kernels.
  void validate(const Problem& p) const override { elementwise::validate_rows(p, INT32_MAX, INT32_MAX); }
  Bindings context(const Problem& p, const ArchFacts& arch) const override { return elementwise::row_context(p, arch); }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return elementwise::row_placeholders(p);
  }
  Cost cost(const Problem& p) const override {
    // LayerNorm: sum, square, scale and shift: about 8 operations an element; RMSNorm about 5.
    const double ops = is_rms(kind_) ? 5.0 : 8.0;
    return {ops * p.dims.at("rows") * p.dims.at("cols"), static_cast<double>(traffic_bytes(kind_, p))};
  }
  int64_t device_bytes(const Problem& p) const override {
    const int64_t rows = p.dims.at("rows"), n = rows * p.dims.at("cols");
    // X, Y and their fp32 reference, W/B, statistics and their references, the copy roof, cuDNN's
    // workspace (small; not known before cuDNN plans).
    return traffic_bytes(kind_, p) + 4 * n + 2 * 4 * rows + CopyRoof::device_bytes(traffic_bytes(kind_, p)) +
           (64 << 20) + guard_overhead(10);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // Outputs are O(1): a rounding of the output type plus the fp32 statistics' error, which
    // scales the whole row (about 1e-6 relative).
    if (dtype == "fp16") return {1e-3, 2e-3, 1e-3};
    if (dtype == "bf16") return {8e-3, 1.6e-2, 8e-3};
    return {2e-5, 2e-5, 1e-5};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<NormWorkload>(kind_, p, gpu, seed);
  }
  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    const int64_t rows = p.dims.at("rows"), cols = p.dims.at("cols"), e = element_bytes(p.dtype);
    std::vector<LaunchOperand> out = {{"X", "rows x cols " + p.dtype + ", row-major", rows * cols * e},
                                      {"W", "cols " + p.dtype + " (the weight)", cols * e}};
    if (!is_rms(kind_)) out.push_back({"B", "cols " + p.dtype + " (the bias)", cols * e});
    out.push_back({"Y", "rows x cols " + p.dtype + ", row-major (written)", rows * cols * e});
    if (!is_rms(kind_)) out.push_back({"mean", "rows fp32 (written)", rows * int64_t{sizeof(float)}});
    out.push_back({"rstd", "rows fp32 (written)", rows * int64_t{sizeof(float)}});
    return out;
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    norm_arguments(kind_, p, operands, tensor_maps, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    const std::string t = elementwise::element_name(p.dtype);
    const bool rms = is_rms(kind_);
    return {{"const " + t + "*", "X"},  {"const " + t + "*", "W"}, {"const " + t + "*", rms ? "B (null for RMSNorm)" : "B"},
            {t + "*", "Y"},             {"float*", rms ? "mean (null for RMSNorm)" : "mean"}, {"float*", "rstd"},
            {"long long", "rows"},      {"int", "cols"},           {"float", "eps"}};
  }

 private:
  CudnnNormKind kind_;
};

}  // namespace

const KernelFamily& layernorm_family() {
  static const NormFamily family(CudnnNormKind::layer_norm);
  return family;
}

const KernelFamily& rmsnorm_family() {
  static const NormFamily family(CudnnNormKind::rms_norm);
  return family;
}

}  // namespace ktune
