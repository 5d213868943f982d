// softmax: Y = softmax(X) over each row of a row-major rows x cols tensor (fp16, bf16, fp32), in
// fp32 math. X ~ 2 N(0,1); the reference is computed in fp64 by kernels/reference.cu (one block
// per row). Baselines: cuDNN's cudnnSoftmaxForward (accurate mode, the call frameworks make) where
// cuDNN loads, paired with candidates; and the copy roof beside it (the only one without cuDNN).
//
// Kernel arguments: const T* X, T* Y, long long rows, int cols, float2* partials, unsigned*
// counters; the last two are the split kernel's workspace (configs bound what a candidate may use
// with the context names split_partials and split_counters), zero at every launch; kernels that
// do not need them leave them out of their signatures.
#include <fmt/format.h>

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

using elementwise::element_bytes;

// The split kernel's workspace: a (maximum, sum) pair per slice of a row, and a counter per row
// plus two. Fixed sizes, as GEMM's split-K workspace: enough for 2^17 long rows in 16 slices.
constexpr int64_t kSplitPartials = int64_t{1} << 21;
constexpr int64_t kSplitCounters = (int64_t{1} << 17) + 2;
constexpr int64_t kSplitPartialBytes = kSplitPartials * 2 * sizeof(float);
constexpr int64_t kSplitCounterBytes = kSplitCounters * sizeof(unsigned);

int64_t traffic_bytes(const Problem& p) {
  return 2 * p.dims.at("rows") * p.dims.at("cols") * element_bytes(p.dtype);
}

// The kernels' argument list from the operands' device addresses.
void softmax_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                       const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) {
  if (!tensor_maps.empty()) throw Error("softmax takes no tensor maps");
  out.add_pointer(operand(operands, "X", p));
  out.add_pointer(operand(operands, "Y", p));
  out.add(static_cast<long long>(p.dims.at("rows")));
  out.add(static_cast<int>(p.dims.at("cols")));
  out.add_pointer(operand(operands, "split_partials", p));
  out.add_pointer(operand(operands, "split_counters", p));
}

class SoftmaxWorkload : public Workload {
 public:
  SoftmaxWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), problem_(p), dtype_(p.dtype), rows_(p.dims.at("rows")), cols_(static_cast<int>(p.dims.at("cols"))),
        copy_(traffic_bytes(p)), cudnn_(gpu.stream(), p.dtype, p.dims.at("rows"), p.dims.at("cols")) {
    const int64_t n = rows_ * cols_;
    x_ = buffers_.add("X", BufferRole::input, n * element_bytes(dtype_));
    y_ = buffers_.add("Y", BufferRole::output, n * element_bytes(dtype_));
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, n * sizeof(float)));
    partials_ = buffers_.add("split partials", BufferRole::workspace, kSplitPartialBytes);
    counters_ = buffers_.add("split counters", BufferRole::counters, kSplitCounterBytes);
    gpu_.fill_normal(x_, dtype_, n, seed, 2.0f);
    CUfunction f = gpu_.kernel("kernels/reference.cu",
                               fmt::format("ktune_ref_softmax<{}>", elementwise::element_name(dtype_)));
    // One block per row, in slices of at most 2^31 - 1 rows (the grid's x limit).
    long long cols = cols_;
    for (long long first = 0; first < rows_; first += INT32_MAX) {
      long long count = std::min<long long>(INT32_MAX, rows_ - first);
      const void* x = static_cast<const char*>(x_) + first * cols_ * element_bytes(dtype_);
      float* ref = ref_ + first * cols_;
      void* args[] = {&x, &ref, &count, &cols};
      Launch l;
      l.block[0] = 256;
      l.grid[0] = count;
      gpu_.launch(f, l, args);
    }
    KTUNE_CUDA(cudaGetLastError());
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    args_.clear();
    softmax_arguments(problem_, {{"X", x_}, {"Y", y_}, {"split_partials", partials_}, {"split_counters", counters_}},
                      tensor_maps, args_);
    return args_.as_vector();
  }
  ErrorStats check_output(const Tolerance& t) override {
    return gpu_.compare(y_, dtype_, ref_, rows_ * cols_, t.atol, t.rtol);
  }
  std::vector<BaselineInfo> baselines() const override {
    std::vector<BaselineInfo> out;
    if (cudnn_.op)
      out.push_back({"cudnn", fmt::format("cudnnSoftmaxForward (accurate, instance, {}) cuDNN {}", dtype_,
                                          cuda::cudnn_version_text())});
    out.push_back(copy_.info());
    return out;
  }
  void run_baseline(size_t which) override {
    if (cudnn_.op && which == 0) {
      cudnn_.op->run(x_, y_, gpu_.stream());
      return;
    }
    copy_.run(gpu_.stream());
  }

 private:
  GpuContext& gpu_;
  Problem problem_;
  std::string dtype_;
  long long rows_;
  int cols_;
  CopyRoof copy_;
  CudnnBaseline<cuda::CudnnSoftmax> cudnn_;
  void *x_ = nullptr, *y_ = nullptr;
  float* ref_ = nullptr;
  void *partials_ = nullptr, *counters_ = nullptr;
  KernelArguments args_;
};

class SoftmaxFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "softmax"; }
  std::string_view summary() const override {
    return "Y = softmax(X) over each row, fp32 math; baselines cuDNN (where it loads) and the copy roof";
  }
  ProblemSchema schema() const override {
    return {{{"rows", "rows of X (softmax runs along each)", ""}, {"cols", "elements per row", ""}},
            {"fp16", "bf16", "fp32"},
            {},
            "math in fp32; the output is rounded to the dtype"};
  }
  Bound bound() const override { return Bound::memory; }
  std::vector<std::string_view> default_configs() const override {
    return {"configs/softmax.json", "configs/softmax_looped.json", "configs/softmax_cluster.json",
            "configs/softmax_staged.json", "configs/softmax_split.json",
            "configs/softmax_split_staged.json"};
  }
  std::vector<std::string> context_names() const override {
    return elementwise::row_context_names({"split_partials", "split_counters"});
  }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT", "COLS"}; }
  void validate(const Problem& p) const override { elementwise::validate_rows(p, INT64_MAX, INT32_MAX); }
  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Bindings b = elementwise::row_context(p, arch);
    b["split_partials"] = kSplitPartials;
    b["split_counters"] = kSplitCounters;
    return b;
  }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return elementwise::row_placeholders(p);
  }
  Cost cost(const Problem& p) const override {
    // max, subtract, exp, sum, scale: about 5 operations an element.
    return {5.0 * p.dims.at("rows") * p.dims.at("cols"), static_cast<double>(traffic_bytes(p))};
  }
  int64_t device_bytes(const Problem& p) const override {
    return traffic_bytes(p) + 4 * p.dims.at("rows") * p.dims.at("cols") + CopyRoof::device_bytes(traffic_bytes(p)) +
           kSplitPartialBytes + kSplitCounterBytes + guard_overhead(5);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // Outputs are about 1/cols, so the bounds are relative: a few roundings of the output type.
    // fp16's atol covers its subnormals (spacing 2^-24), where outputs of long rows land.
    if (dtype == "fp16") return {6e-8, 2e-3, 1e-3};
    if (dtype == "bf16") return {1e-12, 1.6e-2, 8e-3};
    return {1e-12, 2e-5, 1e-5};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<SoftmaxWorkload>(p, gpu, seed);
  }
  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    const int64_t bytes = p.dims.at("rows") * p.dims.at("cols") * element_bytes(p.dtype);
    return {{"X", "rows x cols " + p.dtype + ", row-major", bytes},
            {"Y", "rows x cols " + p.dtype + ", row-major (written)", bytes},
            {"split_partials", "the split kernels' per-slice (maximum, sum) pairs", kSplitPartialBytes, true},
            {"split_counters", "the split kernels' per-row counters (zero between launches)", kSplitCounterBytes, true}};
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    softmax_arguments(p, operands, tensor_maps, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    const std::string t = elementwise::element_name(p.dtype);
    return {{"const " + t + "*", "X"}, {t + "*", "Y"}, {"long long", "rows"}, {"int", "cols"},
            {"float2*", "partials", /*may_end_before=*/true}, {"unsigned*", "counters"}};
  }
};

}  // namespace

const KernelFamily& softmax_family() {
  static const SoftmaxFamily family;
  return family;
}

}  // namespace ktune
