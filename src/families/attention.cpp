// attention: O = softmax(scale · Q·Kᵀ, masked) · V and the row logsumexp, per (batch, head), in
// the layouts, grouping and masking of core/attention_shape.hpp; scale = 1 / sqrt(head_dim),
// as the frameworks' scaled-dot-product attention defaults to. Q, K, V ~ N(0, 1).
//
// The reference is fp32 (families/attention_reference.hpp: QKᵀ of the inputs as stored with fp32
// accumulation, an fp64-accumulated softmax, P·V in pedantic fp32). Tolerance, as the FlashAttention tests judge a fused kernel: its
// error against the fp32 reference may be at most twice that of an unfused computation in the
// same dtype (the second baseline below, run once when the workload is prepared), plus the
// family's small absolute slack (default_tolerance, or --atol); its row logsumexp, computed in
// fp32 by every kernel, by the same rule against the unfused computation's logsumexp (which
// starts from scores rounded to the dtype) with a slack of its own.
//
// Baselines: cuDNN's fused SDPA (cuda/cudnn_sdpa.hpp, where cuDNN and cudnn-frontend are there),
// then the unfused cuBLAS + softmax attention, timed beside it.
//
// Kernel arguments: const T* Q, const T* K, const T* V, T* O, float* LSE, int batch, int heads,
// int kv_heads, int seqlen_q, int seqlen_kv, float scale_log2 (the scale times log2(e)), then
// split-KV's workspace, float* partials and unsigned* arrivals (below; attention_wgmma's persistent
// grid draws its tiles from the first arrival counter); Q, K and V are replaced by their TMA
// descriptors (4-D, one head of one batch a box) where the config names them in "tensor_maps".
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "cuda/check.hpp"
#include "cuda/cudnn.hpp"
#include "cuda/cudnn_sdpa.hpp"
#include "cuda/driver.hpp"
#include "families/attention_reference.hpp"
#include "core/attention_shape.hpp"
#include "families/elementwise.hpp"
#include "families/cudnn_baseline.hpp"
#include "families/family.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using elementwise::element_bytes;

AttentionShape shape_of(const Problem& p) {
  AttentionShape s;
  s.batch = p.dims.at("batch");
  s.heads = p.dims.at("heads");
  s.kv_heads = p.dims.at("kv_heads");
  s.seqlen_q = p.dims.at("seqlen");
  s.seqlen_kv = p.dims.at("seqlen_kv");
  s.head_dim = p.dims.at("head_dim");
  s.causal = p.options.at("causal") == "yes";
  s.bshd = p.options.at("layout") == "bshd";
  s.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s.head_dim)));
  return s;
}

int64_t tensor_bytes(const AttentionShape& s, const std::string& dtype) {
  return (2 * s.q_elements() + 2 * s.kv_elements()) * element_bytes(dtype);  // Q, K, V, O
}
int64_t lse_floats(const AttentionShape& s) { return s.batch * s.heads * s.seqlen_q; }

// Split-KV's workspace (configs bound what a candidate may use with the context names
// splitkv_partial_bytes and splitkv_counters): each split's normalized O and logsumexp in fp32,
// and per-query-tile arrival counters that are zero at every launch (and must be left zero).
constexpr int64_t kSplitKvPartialBytes = 32 << 20;
constexpr int64_t kSplitKvCounters = 1 << 16;

// The slack of the row logsumexp's bound (twice the unfused computation's error, plus this): fp32
// arithmetic over the row and an approximate exp2/log2 in the kernels, on values of a few units.
constexpr double kLseSlack = 2e-3;

class AttentionWorkload : public Workload {
 public:
  AttentionWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), dtype_(p.dtype), shape_(shape_of(p)), unfused_(gpu, shape_, dtype_),
        cudnn_(gpu.stream(), dtype_, shape_) {
    if (cudnn_.op) cudnn_workspace_.emplace(std::max<size_t>(cudnn_.op->workspace_bytes(), 256));
    const int64_t eb = element_bytes(dtype_);
    q_ = buffers_.add("Q", BufferRole::input, shape_.q_elements() * eb);
    k_ = buffers_.add("K", BufferRole::input, shape_.kv_elements() * eb);
    v_ = buffers_.add("V", BufferRole::input, shape_.kv_elements() * eb);
    o_ = buffers_.add("O", BufferRole::output, shape_.q_elements() * eb);
    lse_ = static_cast<float*>(buffers_.add("LSE", BufferRole::output, lse_floats(shape_) * sizeof(float)));
    ref_o_ = static_cast<float*>(buffers_.add("reference O", BufferRole::reference, shape_.q_elements() * sizeof(float)));
    ref_lse_ = static_cast<float*>(buffers_.add("reference LSE", BufferRole::reference, lse_floats(shape_) * sizeof(float)));
    partials_ = buffers_.add("split-KV partials", BufferRole::workspace, kSplitKvPartialBytes);
    arrivals_ = buffers_.add("split-KV arrival counters", BufferRole::counters, kSplitKvCounters * sizeof(unsigned));
    gpu_.fill_normal(q_, dtype_, shape_.q_elements(), seed, 1.0f);
    gpu_.fill_normal(k_, dtype_, shape_.kv_elements(), seed + 1, 1.0f);
    gpu_.fill_normal(v_, dtype_, shape_.kv_elements(), seed + 2, 1.0f);
    attention_reference(gpu_, shape_, dtype_, q_, k_, v_, ref_o_, ref_lse_);

    // The yardstick: how far the unfused same-dtype computation lands from the reference.
    unfused_.run(q_, k_, v_, o_, lse_);
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    unfused_error_ = gpu_.compare(o_, dtype_, ref_o_, shape_.q_elements(), INFINITY, 0.0);
    unfused_lse_error_ = gpu_.compare(lse_, "fp32", ref_lse_, lse_floats(shape_), INFINITY, 0.0);
    if (unfused_error_.nonfinite > 0 || unfused_lse_error_.nonfinite > 0)
      throw Error(fmt::format("the unfused {} attention gave {} non-finite outputs: no yardstick for the tolerance",
                              dtype_, unfused_error_.nonfinite));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    batch_ = static_cast<int>(shape_.batch);
    heads_ = static_cast<int>(shape_.heads);
    kv_heads_ = static_cast<int>(shape_.kv_heads);
    seqlen_q_ = static_cast<int>(shape_.seqlen_q);
    seqlen_kv_ = static_cast<int>(shape_.seqlen_kv);
    scale_log2_ = static_cast<float>(shape_.scale * 1.4426950408889634);
    std::vector<void*> args = {&q_,         &k_,       &v_,        &o_,          &lse_,      &batch_,
                               &heads_,     &kv_heads_, &seqlen_q_, &seqlen_kv_, &scale_log2_, &partials_,
                               &arrivals_};
    maps_.assign(tensor_maps.size(), CUtensorMap{});
    for (size_t i = 0; i < tensor_maps.size(); ++i) {
      const TensorMapSpec& t = tensor_maps[i];
      const int slot = t.operand == "Q" ? 0 : t.operand == "K" ? 1 : t.operand == "V" ? 2 : -1;
      if (slot < 0) throw Error("attention has no operand " + t.operand + " to pass as a tensor map");
      const bool q = slot == 0;
      encode(maps_[i], t, slot == 0 ? q_ : slot == 1 ? k_ : v_, q ? shape_.heads : shape_.kv_heads,
             q ? shape_.seqlen_q : shape_.seqlen_kv);
      args[slot] = &maps_[i];
    }
    return args;
  }

  // O by the widened tolerance (tolerance() below); the logsumexp by its own bound, the same rule
  // over the unfused computation's logsumexp error, where its normalized error (over values of a
  // few units) must not count against O's.
  ErrorStats check_output(const Tolerance& t) override {
    const ErrorStats o = gpu_.compare(o_, dtype_, ref_o_, shape_.q_elements(), t.atol, t.rtol);
    ErrorStats lse = gpu_.compare(lse_, "fp32", ref_lse_, lse_floats(shape_), lse_atol(), 0.0);
    lse.norm_rel = 0;
    return worst_of(o, lse);
  }
  Tolerance tolerance(const Tolerance& requested) const override {
    return {requested.atol + 2.0 * unfused_error_.max_abs, requested.rtol,
            requested.max_norm_rel + 2.0 * unfused_error_.norm_rel};
  }

  std::vector<BaselineInfo> baselines() const override {
    std::vector<BaselineInfo> out;
    if (cudnn_.op)
      out.push_back({"cudnn", fmt::format("cuDNN {} fused SDPA forward ({}, {})", cuda::cudnn_version_text(), dtype_,
                                          cudnn_.op->engine())});
    out.push_back({"cublas", unfused_.name()});
    // Without cuDNN the unfused attention is the yardstick, and the results say why.
    if (!cudnn_.op) out.push_back({"cudnn", "cuDNN fused SDPA forward", true, cudnn_.why_not});
    return out;
  }
  void run_baseline(size_t which) override {
    if (cudnn_.op && which == 0) {
      cudnn_.op->run(q_, k_, v_, o_, lse_, cudnn_workspace_->get(), gpu_.stream());
      return;
    }
    unfused_.run(q_, k_, v_, o_, lse_);
  }

 private:
  double lse_atol() const { return kLseSlack + 2.0 * unfused_lse_error_.max_abs; }

  GpuContext& gpu_;
  std::string dtype_;
  AttentionShape shape_;
  UnfusedAttention unfused_;
  CudnnBaseline<cuda::CudnnSdpa> cudnn_;
  std::optional<cuda::DeviceBuffer> cudnn_workspace_;
  ErrorStats unfused_error_, unfused_lse_error_;
  void *q_ = nullptr, *k_ = nullptr, *v_ = nullptr, *o_ = nullptr, *partials_ = nullptr, *arrivals_ = nullptr;
  float *lse_ = nullptr, *ref_o_ = nullptr, *ref_lse_ = nullptr;
  int batch_ = 0, heads_ = 0, kv_heads_ = 0, seqlen_q_ = 0, seqlen_kv_ = 0;
  float scale_log2_ = 0;
  std::vector<CUtensorMap> maps_;

  // One of Q, K, V (`heads` heads of `seqlen` rows) as a 4-D tensor map, innermost first:
  // (head_dim, seqlen, heads, batch) for bhsd, (head_dim, heads, seqlen, batch) for bshd. The box
  // (t.box: elements of a row, rows) spans one head of one batch, so a tile's rows past the
  // sequence are zero-filled, never the next head's.
  void encode(CUtensorMap& map, const TensorMapSpec& t, void* base, int64_t heads, int64_t seqlen) const {
    const auto eb = static_cast<cuuint64_t>(element_bytes(dtype_));
    const auto d = static_cast<cuuint64_t>(shape_.head_dim), h = static_cast<cuuint64_t>(heads),
               sq = static_cast<cuuint64_t>(seqlen), b = static_cast<cuuint64_t>(shape_.batch);
    const auto box_cols = static_cast<cuuint32_t>(t.box[0]), box_rows = static_cast<cuuint32_t>(t.box[1]);
    const cuuint64_t dims[4] = {d, shape_.bshd ? h : sq, shape_.bshd ? sq : h, b};
    const cuuint64_t strides[3] = {d * eb, d * eb * dims[1], d * eb * dims[1] * dims[2]};
    const cuuint32_t box[4] = {box_cols, shape_.bshd ? 1u : box_rows, shape_.bshd ? box_rows : 1u, 1u};
    const cuuint32_t element_strides[4] = {1, 1, 1, 1};
    const CUtensorMapSwizzle swizzle = t.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : t.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                       : t.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                         : CU_TENSOR_MAP_SWIZZLE_NONE;
    KTUNE_CU(cuda::driver().tensor_map_encode_tiled(
        &map, dtype_ == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, base, dims,
        strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  }
};

class AttentionFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "attention"; }
  std::string_view summary() const override {
    return "O = softmax(Q·Kᵀ/sqrt(d), masked)·V and the row logsumexp (FlashAttention forward); baselines cuDNN "
           "SDPA (where it loads) and unfused cuBLAS attention";
  }
  ProblemSchema schema() const override {
    return {{{"batch", "sequences in the batch", ""},
             {"heads", "query heads", ""},
             {"kv_heads", "key/value heads (grouped-query attention: divides heads)", "heads"},
             {"seqlen", "query rows per sequence", ""},
             {"seqlen_kv", "key/value rows per sequence", "seqlen"},
             {"head_dim", "elements per head: 64, 128 or 256", ""}},
            {"fp16", "bf16"},
            {{"causal", "mask keys after each query (bottom-right aligned)", {"no", "yes"}, "no"},
             {"layout", "bhsd: [batch, heads, seqlen, head_dim]; bshd: [batch, seqlen, heads, head_dim]",
              {"bhsd", "bshd"}, "bhsd"}},
            "Q, K, V and O in the dtype; scores, softmax and the logsumexp in fp32"};
  }
  Bound bound() const override { return Bound::compute; }
  std::vector<std::string_view> default_configs() const override {
    return {"configs/attention_mma.json", "configs/attention_wgmma.json"};
  }
  std::vector<std::string> context_names() const override {
    std::vector<std::string> names = {"batch",    "heads",  "kv_heads", "seqlen", "seqlen_kv", "head_dim",
                                      "causal",   "splitkv_partial_bytes", "splitkv_counters"};
    for (std::string& n : elementwise::device_context_names()) names.push_back(std::move(n));
    return names;
  }
  std::vector<std::string> placeholder_names() const override { return {"ELEMENT", "HEAD_DIM", "CAUSAL", "BSHD"}; }
  std::vector<std::string> tensor_map_operands() const override { return {"Q", "K", "V"}; }
  void validate(const Problem& p) const override {
    const AttentionShape s = shape_of(p);
    const int64_t d = s.head_dim;
    if (d != 64 && d != 128 && d != 256) throw ConfigError(fmt::format("head_dim must be 64, 128 or 256 (got {})", d));
    if (s.heads % s.kv_heads != 0)
      throw ConfigError(fmt::format("kv_heads = {} must divide heads = {}", s.kv_heads, s.heads));
    if (s.causal && s.seqlen_kv < s.seqlen_q)
      throw ConfigError(fmt::format("a causal mask needs seqlen_kv >= seqlen (got {} < {}): bottom-right aligned, "
                                    "the first rows would see no key",
                                    s.seqlen_kv, s.seqlen_q));
    for (const char* name : {"seqlen", "seqlen_kv"})
      if (p.dims.at(name) > INT32_MAX) throw ConfigError(fmt::format("{} must fit in 32 bits", name));
    if (s.heads > 65535 || s.batch > 65535) throw ConfigError("heads and batch must be at most 65535 (grid limits)");
  }
  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    const AttentionShape s = shape_of(p);
    Bindings b = elementwise::device_context(p.dtype, arch);
    b["batch"] = s.batch;
    b["heads"] = s.heads;
    b["kv_heads"] = s.kv_heads;
    b["seqlen"] = s.seqlen_q;
    b["seqlen_kv"] = s.seqlen_kv;
    b["head_dim"] = s.head_dim;
    b["causal"] = s.causal ? 1 : 0;
    b["splitkv_partial_bytes"] = kSplitKvPartialBytes;
    b["splitkv_counters"] = kSplitKvCounters;
    return b;
  }
  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    const AttentionShape s = shape_of(p);
    return {{"ELEMENT", elementwise::element_name(p.dtype)},
            {"HEAD_DIM", std::to_string(s.head_dim)},
            {"CAUSAL", s.causal ? "1" : "0"},
            {"BSHD", s.bshd ? "1" : "0"}};
  }
  Cost cost(const Problem& p) const override {
    // Two GEMMs of 2·seqlen_q·seqlen_kv·head_dim each per head; a causal mask (square) halves it,
    // as FlashAttention and cuDNN count it.
    const AttentionShape s = shape_of(p);
    double flops = 4.0 * s.batch * s.heads * s.seqlen_q * s.seqlen_kv * s.head_dim;
    if (s.causal) flops /= 2;
    return {flops, static_cast<double>(tensor_bytes(s, p.dtype) + lse_floats(s) * 4)};
  }
  int64_t device_bytes(const Problem& p) const override {
    const AttentionShape s = shape_of(p);
    return tensor_bytes(s, p.dtype) + 4 * (s.q_elements() + 2 * lse_floats(s)) +
           UnfusedAttention::workspace_bytes(s, p.dtype) + kSplitKvPartialBytes +
           kSplitKvCounters * 4 + guard_overhead(9);
  }
  Tolerance default_tolerance(const std::string& dtype) const override {
    // The slack above twice the unfused computation's error (see the top of this file): about a
    // rounding of an output of size one in the dtype.
    if (dtype == "bf16") return {4e-3, 0, 4e-3};
    return {5e-4, 0, 5e-4};
  }
  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<AttentionWorkload>(p, gpu, seed);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig& config) const override {
    const std::string t = elementwise::element_name(p.dtype);
    auto input = [&](const char* name) { return operand_parameter(config, name, "const " + t + "*"); };
    return {input("Q"),            input("K"),            input("V"),             {t + "*", "O"},
            {"float*", "LSE"},     {"int", "batch"},      {"int", "heads"},       {"int", "kv_heads"},
            {"int", "seqlen_q"},   {"int", "seqlen_kv"},  {"float", "scale_log2"},
            {"float*", "partials", /*may_end_before=*/true},  // a kernel without split-KV may stop here
            {"unsigned*", "arrivals"}};
  }
};

}  // namespace

const KernelFamily& attention_family() {
  static const AttentionFamily family;
  return family;
}

}  // namespace ktune
