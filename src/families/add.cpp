// add: C = A + B over N elements (fp32, fp16, bf16): the simplest stream, two reads and a write
// per element, judged against the copy roof. A and B ~ N(0,1); the reference is the fp32 sum from
// kernels/reference.cu (exact for 16-bit inputs, so a candidate may only differ by its one
// rounding to the output type). The baseline is the copy roof: no library has an add users would
// call instead, and the copy engine moving the same bytes is the bound a stream can reach.
//
// Kernel arguments: const T* A, const T* B, T* C, long long N.
#include <fmt/format.h>

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

int64_t traffic_bytes(const Problem& p) { return 3 * p.dims.at("N") * element_bytes(p.dtype); }

// The kernels' argument list from the operands' device addresses.
void add_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                   const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) {
  if (!tensor_maps.empty()) throw Error("add takes no tensor maps");
  for (const char* name : {"A", "B", "C"}) out.add_pointer(operand(operands, name, p));
  out.add(static_cast<long long>(p.dims.at("N")));
}

class AddWorkload : public Workload {
 public:
  AddWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), problem_(p), dtype_(p.dtype), n_(p.dims.at("N")), copy_(traffic_bytes(p)) {
    const int64_t bytes = n_ * element_bytes(dtype_);
    a_ = buffers_.add("A", BufferRole::input, bytes);
    b_ = buffers_.add("B", BufferRole::input, bytes);
    c_ = buffers_.add("C", BufferRole::output, bytes);
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, n_ * sizeof(float)));
    gpu_.fill_normal(a_, dtype_, n_, seed, 1.0f);
    gpu_.fill_normal(b_, dtype_, n_, seed + 1, 1.0f);
    CUfunction f = gpu_.kernel("kernels/reference.cu",
                               fmt::format("ktune_ref_add<{}>", elementwise::element_name(dtype_)));
    Launch l;
    l.block[0] = 256;
    l.grid[0] = std::min<int64_t>((n_ + 255) / 256, 65535);
    long long n = n_;
    void* args[] = {&a_, &b_, &ref_, &n};
    gpu_.launch(f, l, args);
    KTUNE_CUDA(cudaGetLastError());
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    args_.clear();
    add_arguments(problem_, {{"A", a_}, {"B", b_}, {"C", c_}}, tensor_maps, args_);
    return args_.as_vector();
  }
  ErrorStats check_output(const Tolerance& t) override { return gpu_.compare(c_, dtype_, ref_, n_, t.atol, t.rtol); }
  std::vector<BaselineInfo> baselines() const override { return {copy_.info()}; }
  void run_baseline(size_t) override { copy_.run(gpu_.stream()); }

 private:
  GpuContext& gpu_;
  Problem problem_;
  std::string dtype_;
  long long n_;
  CopyRoof copy_;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  float* ref_ = nullptr;
  KernelArguments args_;
};

class AddFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "add"; }
  std::string_view summary() const override { return "C = A + B elementwise; baseline the copy roof"; }
  ProblemSchema schema() const override {
    return {{{"N", "elements", ""}}, elementwise::dtypes(), {}, "the sum is taken in fp32 and rounded once"};
  }
  Bound bound() const override { return Bound::memory; }
  std::vector<std::string_view> default_configs() const override { return {"configs/add.json"}; }
  std::vector<std::string> context_names() const override {
    std::vector<std::string> names = {"N"};
    for (std::string& n : elementwise::device_context_names()) names.push_back(std::move(n));
    return names;
  }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT"}; }
  void validate(const Problem& p) const override {
    const int64_t n = p.dims.at("N");
    if (n <= 0) throw ConfigError(fmt::format("N must be >= 1 (got {})", n));
  }
  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Bindings b = elementwise::device_context(p.dtype, arch);
    b["N"] = p.dims.at("N");
    return b;
  }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    return {{"ELEMENT", elementwise::element_name(p.dtype)}};
  }
  Cost cost(const Problem& p) const override {
    return {static_cast<double>(p.dims.at("N")), static_cast<double>(traffic_bytes(p))};
  }
  int64_t device_bytes(const Problem& p) const override {
    return traffic_bytes(p) + 4 * p.dims.at("N") + CopyRoof::device_bytes(traffic_bytes(p)) + guard_overhead(4);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // One rounding of the exact sum to the output type: half an ulp, 2^-11 (fp16) or 2^-8 (bf16)
    // relative; fp32 candidates add the same two floats the reference does.
    if (dtype == "fp16") return {1e-3, 1e-3, 5e-4};
    if (dtype == "bf16") return {8e-3, 8e-3, 4e-3};
    return {1e-6, 1e-6, 1e-7};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<AddWorkload>(p, gpu, seed);
  }
  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    const int64_t bytes = p.dims.at("N") * element_bytes(p.dtype);
    return {{"A", "N " + p.dtype, bytes}, {"B", "N " + p.dtype, bytes}, {"C", "N " + p.dtype + " (written)", bytes}};
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    add_arguments(p, operands, tensor_maps, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig&) const override {
    const std::string t = elementwise::element_name(p.dtype);
    return {{"const " + t + "*", "A"}, {"const " + t + "*", "B"}, {t + "*", "C"}, {"long long", "N"}};
  }
};

}  // namespace

const KernelFamily& add_family() {
  static const AddFamily family;
  return family;
}

}  // namespace ktune
