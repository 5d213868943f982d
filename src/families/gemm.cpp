// GEMM: C[M,N] = A[M,K] * B[K,N], C row-major, A and B each row- or column-major.
// Inputs: A ~ N(0,1), B ~ N(0,1)/sqrt(K), so every output is about N(0,1) whatever K is and the
// tolerances mean the same thing for every shape. The reference is cuBLAS with fp32 output and
// pedantic fp32 compute; the baseline timed against candidates is cuBLAS in the problem's own
// dtype (fp32 problems on TF32 tensor cores, as the candidates).
//
// fp8 problems: A and B are e4m3 with per-tensor scales, C = scale_a * scale_b * (A*B) in bf16,
// layout rc only (both operands K-contiguous, the one form fp8 tensor cores and cuBLASLt take).
// A holds N(0,1)*4 rounded to e4m3 with scale_a = 1/4, B the same with scale_b = 1/(4 sqrt(K)):
// the outputs are again ~N(0,1), and a kernel that ignores the scales is far off. The reference
// multiplies the exact fp32 values of the fp8 inputs; the baseline is cublasLtMatmul.
// With --scaling block the scales are per 1 x 128 of A (along K) and per 128 x 128 of B, each
// 2^u times the per-tensor one (u uniform in [-1, 1], seeded), so a kernel that applies one scale
// per tensor, or a block's scale to the wrong block, is far off; they lie as cuBLASLt's
// VEC128_32F and BLK128x128_32F read them (kernels/gemm_wgmma.cu, "Block scales"), the reference
// dequantizes the inputs with them, and the baseline is cublasLtMatmul in those scale modes.
//
// Kernel arguments, for every gemm kernel: A, B, C, M, N, K (int); A or B replaced by its TMA
// descriptor when the config names it in "tensor_maps"; then C's descriptor when "C" is named (the
// C pointer stays in place as well); then const float* scale_a, const float* scale_b (null but for
// fp8 problems); then split-K's workspace, float* partials and unsigned* arrivals (see below).
#include <cublasLt.h>
#include <cublas_v2.h>
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <random>
#include <type_traits>

#include "core/element.hpp"
#include "cuda/check.hpp"
#include "cuda/tensor_map.hpp"
#include "families/family.hpp"
#include "gpu/gpu_context.hpp"
#include "quant/block_scaled.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// Bytes and C++ name of an A or B element (core/element.hpp's table; fp8 is e4m3).
int64_t element_bytes(const std::string& dtype) { return find_element(dtype)->bytes; }

// The type C is stored in: fp8 problems write bf16, the others their own type.
std::string out_dtype(const std::string& dtype) { return dtype == "fp8" ? "bf16" : dtype; }

int64_t out_bytes(const std::string& dtype) { return element_bytes(out_dtype(dtype)); }

const char* element_name(const std::string& dtype) { return find_element(dtype)->cpp.data(); }

cudaDataType_t cuda_type(const std::string& dtype) {
  if (dtype == "fp16") return CUDA_R_16F;
  if (dtype == "bf16") return CUDA_R_16BF;
  return CUDA_R_32F;
}

// Split-K's workspace, passed to every kernel after the scales (configs bound what a candidate may
// use with the context names splitk_partial_bytes and splitk_counters): fp32 partial sums, and
// per-tile arrival counters that are zero at every launch.
constexpr int64_t kSplitKPartialBytes = 48 << 20;  // stream-K: 2 tiles of 128x256 per CTA of 132
constexpr int64_t kSplitKCounters = 1 << 16;

// fp8 inputs are drawn 4x wider than N(0,1) so that e4m3's 3 mantissa bits cover them well (its
// subnormals start at 2^-6); the scales bring the product back to ~N(0,1).
constexpr float kFp8InputSpread = 4.0f;

struct Shape {
  int64_t m, n, k;
  bool a_row, b_row;
  bool block_scaled;  // fp8 with scales per 1 x 128 of A and 128 x 128 of B
  explicit Shape(const Problem& p)
      : m(p.dims.at("M")), n(p.dims.at("N")), k(p.dims.at("K")),
        a_row(p.option("layout")[0] == 'r'), b_row(p.option("layout")[1] == 'r'),
        block_scaled(p.option("scaling") == "block") {}
  int64_t lda() const { return a_row ? k : m; }
  int64_t ldb() const { return b_row ? n : k; }
  // Block scales, as cuBLASLt lays them out: A's M x k_blocks with M contiguous (VEC128_32F), B's
  // n_blocks rows of k_blocks rounded up to 4 (BLK128x128_32F).
  int64_t k_blocks() const { return (k + 127) / 128; }
  int64_t b_scale_ld() const { return quant::cublaslt_blk128_row(k_blocks()); }
  int64_t a_scales() const { return block_scaled ? m * k_blocks() : 1; }
  int64_t b_scales() const { return block_scaled ? (n + 127) / 128 * b_scale_ld() : 1; }
};

// Owners for the cuBLASLt descriptors the fp8 baseline keeps (destroyed without a check: a
// destructor must not throw, and these calls only free host memory).
template <typename Handle, cublasStatus_t (*destroy)(Handle)>
struct LtDestroy {
  void operator()(Handle h) const { destroy(h); }
};
template <typename Handle, cublasStatus_t (*destroy)(Handle)>
using LtOwner = std::unique_ptr<std::remove_pointer_t<Handle>, LtDestroy<Handle, destroy>>;
using LtMatmulDesc = LtOwner<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using LtLayout = LtOwner<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using LtPreference = LtOwner<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

LtLayout lt_layout(cudaDataType_t type, int64_t rows, int64_t cols, int64_t ld) {
  cublasLtMatrixLayout_t layout = nullptr;
  KTUNE_CUBLAS(cublasLtMatrixLayoutCreate(&layout, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ld));
  return LtLayout(layout);
}

template <typename T>
void lt_set(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  KTUNE_CUBLAS(cublasLtMatmulDescSetAttribute(desc, attribute, &value, sizeof value));
}

// A rows x cols matrix, row- or column-major, as a 2-D tensor map (innermost dimension first).
void encode(CUtensorMap& map, const TensorMapSpec& t, void* base, const std::string& dtype, bool row_major,
            int64_t rows, int64_t cols) {
  map = row_major ? cuda::encode_matrix(t, base, cuda::tensor_map_type(dtype), element_bytes(dtype), rows, cols)
                  : cuda::encode_matrix(t, base, cuda::tensor_map_type(dtype), element_bytes(dtype), cols, rows);
}

// Every gemm kernel's argument list (the header above) from the operands' device addresses.
void gemm_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                    const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) {
  const Shape shape(p);
  const std::string& dtype = p.dtype;
  void* a = operand(operands, "A", p);
  void* b = operand(operands, "B", p);
  void* c = operand(operands, "C", p);
  out.add_pointer(a);
  out.add_pointer(b);
  out.add_pointer(c);
  out.add(static_cast<int>(shape.m));
  out.add(static_cast<int>(shape.n));
  out.add(static_cast<int>(shape.k));
  bool c_map = false;
  CUtensorMap map_c{};
  for (const TensorMapSpec& t : tensor_maps) {
    CUtensorMap map{};
    if (t.operand == "A") {
      encode(map, t, a, dtype, shape.a_row, shape.m, shape.k);
      out.set(0, map);
    } else if (t.operand == "B") {
      encode(map, t, b, dtype, shape.b_row, shape.k, shape.n);
      out.set(1, map);
    } else if (t.operand == "C") {
      encode(map_c, t, c, out_dtype(dtype), true, shape.m, shape.n);
      c_map = true;
    } else {
      throw Error("gemm has no operand " + t.operand + " to pass as a tensor map");
    }
  }
  if (c_map) out.add(map_c);
  // Always passed (null but for fp8), so that one kernel signature serves every dtype; a kernel
  // with fewer parameters never reads the extra entries.
  const bool fp8 = dtype == "fp8";
  out.add_pointer(fp8 ? operand(operands, "scale_a", p) : nullptr);
  out.add_pointer(fp8 ? operand(operands, "scale_b", p) : nullptr);
  out.add_pointer(operand(operands, "splitk_partials", p));
  out.add_pointer(operand(operands, "splitk_arrivals", p));
}

class GemmWorkload : public Workload {
 public:
  GemmWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : Workload(gpu), gpu_(gpu), problem_(p), dtype_(p.dtype), fp8_(p.dtype == "fp8"), shape_(p) {
    const int64_t eb = element_bytes(dtype_);
    a_ = buffers_.add("A", BufferRole::input, shape_.m * shape_.k * eb);
    b_ = buffers_.add("B", BufferRole::input, shape_.k * shape_.n * eb);
    c_ = buffers_.add("C", BufferRole::output, shape_.m * shape_.n * out_bytes(dtype_));
    ref_ = static_cast<float*>(buffers_.add("reference", BufferRole::reference, shape_.m * shape_.n * sizeof(float)));
    partials_ = buffers_.add("split-K partials", BufferRole::workspace, kSplitKPartialBytes);
    arrivals_ = buffers_.add("split-K arrival counters", BufferRole::counters, kSplitKCounters * sizeof(unsigned));
    const float b_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape_.k)));
    const float spread = fp8_ ? kFp8InputSpread : 1.0f;
    gpu_.fill_normal(a_, dtype_, shape_.m * shape_.k, seed, spread);
    gpu_.fill_normal(b_, dtype_, shape_.k * shape_.n, seed + 1, fp8_ ? spread : b_scale);
    KTUNE_CUDA(cudaMemsetAsync(ref_, 0xff, shape_.m * shape_.n * sizeof(float), gpu_.stream()));
    if (fp8_) {
      // Scales live on the device, where kernels and cuBLASLt read them, each buffer 16-byte
      // aligned: with a 4-byte-aligned one cublasLtMatmul says NOT_SUPPORTED (its heuristic does
      // not). Per tensor: one float each; per block: 2^u times those, u uniform in [-1, 1].
      scale_a_ = 1.0f / kFp8InputSpread;
      scale_b_ = b_scale / kFp8InputSpread;
      scale_a_ptr_ = upload_scales("scale_a", scale_a_, shape_.a_scales(), seed + 2);
      scale_b_ptr_ = upload_scales("scale_b", scale_b_, shape_.b_scales(), seed + 3);
      fp8_reference();
      choose_lt_algorithm();
    } else {
      gemm(a_, b_, cuda_type(dtype_), ref_, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, 1.0f);
    }
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
    buffers_.seal();
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    args_.clear();
    gemm_arguments(problem_,
                   {{"A", a_}, {"B", b_}, {"C", c_}, {"scale_a", const_cast<float*>(scale_a_ptr_)},
                    {"scale_b", const_cast<float*>(scale_b_ptr_)}, {"splitk_partials", partials_},
                    {"splitk_arrivals", arrivals_}},
                   tensor_maps, args_);
    return args_.as_vector();
  }

  ErrorStats check_output(const Tolerance& t) override {
    return gpu_.compare(c_, out_dtype(dtype_), ref_, shape_.m * shape_.n, t.atol, t.rtol);
  }

  void run_baseline(size_t) override {
    if (!lt_unavailable_.empty()) throw Error("no baseline to run: " + lt_unavailable_);
    if (fp8_) {
      const float alpha = 1.0f, beta = 0.0f;
      KTUNE_CUBLAS(cublasLtMatmul(gpu_.cublas_lt(), lt_desc_.get(), &alpha, b_, lt_a_.get(), a_,
                                  lt_b_.get(), &beta, c_, lt_c_.get(), c_, lt_c_.get(), &lt_algo_,
                                  gpu_.cublas_workspace(), gpu_.cublas_workspace_bytes(), gpu_.stream()));
      return;
    }
    gemm(a_, b_, cuda_type(dtype_), c_, cuda_type(dtype_),
         dtype_ == "fp32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, 1.0f);
  }

  // "cublas" for cuBLASLt's fp8 call too: one library.
  std::vector<BaselineInfo> baselines() const override {
    if (fp8_ && shape_.block_scaled)
      return {{"cublas", "cublasLtMatmul (fp8 e4m3, 1x128 and 128x128 block scales, bf16 out)", true, lt_unavailable_}};
    if (fp8_) return {{"cublas", "cublasLtMatmul (fp8 e4m3, fast accumulation, bf16 out)", true, lt_unavailable_}};
    return {{"cublas", dtype_ == "fp32" ? "cublasGemmEx (tf32 tensor cores)"
                                        : "cublasGemmEx (" + dtype_ + ", fp32 accumulate)"}};
  }

 private:
  // Row-major C = alpha * A*B is column-major C^T = alpha * B^T * A^T: hand cuBLAS B first.
  void gemm(const void* a, const void* b, cudaDataType_t ab_type, void* c, cudaDataType_t c_type,
            cublasComputeType_t compute, float alpha) {
    const float beta = 0.0f;
    KTUNE_CUBLAS(cublasGemmEx(gpu_.cublas(), shape_.b_row ? CUBLAS_OP_N : CUBLAS_OP_T,
                              shape_.a_row ? CUBLAS_OP_N : CUBLAS_OP_T, static_cast<int>(shape_.n),
                              static_cast<int>(shape_.m), static_cast<int>(shape_.k), &alpha, b, ab_type,
                              static_cast<int>(shape_.ldb()), a, ab_type, static_cast<int>(shape_.lda()),
                              &beta, c, c_type, static_cast<int>(shape_.n), compute, CUBLAS_GEMM_DEFAULT));
  }

  // `count` scales on the device: `base` itself, or `count` of base * 2^u (block scales).
  const float* upload_scales(const char* name, float base, int64_t count, uint64_t seed) {
    std::vector<float> host(static_cast<size_t>(count), base);
    if (shape_.block_scaled) {
      std::mt19937_64 rng(seed);
      std::uniform_real_distribution<float> u(-1.0f, 1.0f);
      for (float& v : host) v = base * std::exp2(u(rng));
    }
    void* device = buffers_.add(name, BufferRole::input, count * static_cast<int64_t>(sizeof(float)));
    KTUNE_CUDA(cudaMemcpyAsync(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice,
                               gpu_.stream()));
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));  // `host` goes out of scope
    return static_cast<const float*>(device);
  }

  // The fp8 reference: the inputs' exact fp32 values through the same pedantic fp32 GEMM as the
  // other dtypes, per-tensor scales folded into alpha, block scales applied to the fp32 copies
  // (A's per row and 128 of K; B, N rows of K, per 128 x 128). The copies live only while it runs.
  void fp8_reference() {
    cuda::DeviceBuffer a32(shape_.m * shape_.k * sizeof(float)), b32(shape_.k * shape_.n * sizeof(float));
    gpu_.to_fp32(a_, dtype_, a32.as<float>(), shape_.m * shape_.k);
    gpu_.to_fp32(b_, dtype_, b32.as<float>(), shape_.k * shape_.n);
    float alpha = scale_a_ * scale_b_;
    if (shape_.block_scaled) {
      gpu_.scale_blocks(a32.as<float>(), shape_.m, shape_.k, scale_a_ptr_, 1, 1, shape_.m);
      gpu_.scale_blocks(b32.as<float>(), shape_.n, shape_.k, scale_b_ptr_, 128, shape_.b_scale_ld(), 1);
      alpha = 1.0f;
    }
    gemm(a32.get(), b32.get(), CUDA_R_32F, ref_, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, alpha);
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
  }

  // The fp8 baseline, set up once: cublasLtMatmul in the TN form Hopper fp8 requires. Row-major
  // C = A*B is column-major C^T = B^T * A^T, and with K-contiguous A and B (layout rc) that is
  // cuBLASLt "A" = our B (K x N column-major, transposed) and "B" = our A (K x M column-major, not
  // transposed). Fast accumulation: the ktune kernels accumulate in wgmma without promoting to a
  // separate fp32 sum every few k-steps, so this is the same arithmetic and the honest comparison.
  // Block scales: cuBLASLt "A" (our B) per 128 x 128, "B" (our A) per 1 x 128, and no fast
  // accumulation (cuBLASLt promotes at every scale block, as the ktune kernel does).
  void choose_lt_algorithm() {
    cublasLtMatmulDesc_t desc = nullptr;
    KTUNE_CUBLAS(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    lt_desc_ = LtMatmulDesc(desc);
    lt_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, int32_t{CUBLAS_OP_T});
    lt_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, int32_t{CUBLAS_OP_N});
    lt_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, static_cast<const void*>(scale_b_ptr_));
    lt_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, static_cast<const void*>(scale_a_ptr_));
    if (shape_.block_scaled) {
      lt_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F});
      lt_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, int32_t{CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F});
    } else {
      lt_set(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, int8_t{1});
    }
    lt_a_ = lt_layout(CUDA_R_8F_E4M3, shape_.k, shape_.n, shape_.k);
    lt_b_ = lt_layout(CUDA_R_8F_E4M3, shape_.k, shape_.m, shape_.k);
    lt_c_ = lt_layout(CUDA_R_16BF, shape_.n, shape_.m, shape_.n);

    cublasLtMatmulPreference_t pref = nullptr;
    KTUNE_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    LtPreference owned_pref(pref);
    const uint64_t workspace = gpu_.cublas_workspace_bytes();
    KTUNE_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(gpu_.cublas_lt(), desc, lt_a_.get(), lt_b_.get(),
                                                                 lt_c_.get(), lt_c_.get(), pref, 1, &result, &found);
    if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED)
      cuda::throw_cublas_error(status, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
    if (status == CUBLAS_STATUS_NOT_SUPPORTED || found == 0) {
      lt_unavailable_ =
          shape_.block_scaled
              ? fmt::format("cuBLASLt has no block-scaled fp8 algorithm for {}x{}x{} on this GPU (its 1x128 / "
                            "128x128 scale modes need compute capability 9.0 and 16-byte-aligned leading dimensions)",
                            shape_.m, shape_.n, shape_.k)
              : fmt::format("cuBLASLt has no fp8 algorithm for {}x{}x{} on this GPU (its fp8 matmuls need "
                            "compute capability 8.9 or newer and 16-byte-aligned leading dimensions)",
                            shape_.m, shape_.n, shape_.k);
      return;
    }
    lt_algo_ = result.algo;
  }

  GpuContext& gpu_;
  Problem problem_;
  std::string dtype_;
  bool fp8_;
  Shape shape_;
  // Device memory, owned by buffers_ (guarded, by role); kernel_args hands out their addresses.
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr, *partials_ = nullptr, *arrivals_ = nullptr;
  float* ref_ = nullptr;
  float scale_a_ = 1.0f, scale_b_ = 1.0f;  // fp8 only: the per-tensor scales (block scales' centre)
  const float *scale_a_ptr_ = nullptr, *scale_b_ptr_ = nullptr;
  KernelArguments args_;  // the last kernel_args() list's values
  LtMatmulDesc lt_desc_;
  LtLayout lt_a_, lt_b_, lt_c_;
  cublasLtMatmulAlgo_t lt_algo_{};
  std::string lt_unavailable_;  // why cuBLASLt has no algorithm for this fp8 problem, if it has none
};

class GemmFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "gemm"; }
  std::string_view summary() const override {
    return "C = A*B (M x K times K x N), fp32 accumulation; baseline cuBLAS (cuBLASLt for fp8)";
  }
  ProblemSchema schema() const override {
    return {{{"M", "rows of A and C", ""}, {"N", "columns of B and C", "M"}, {"K", "columns of A, rows of B", "M"}},
            {"fp16", "bf16", "fp8", "fp32"},
            {{"layout", "A then B, r = row-major, c = column-major", {"rr", "rc", "cr", "cc"}, "rr"},
             {"scaling", "fp8's scales: one per tensor, or one per 1 x 128 of A and per 128 x 128 of B (block)",
              {"tensor", "block"}, "tensor", /*left_out_at_default=*/true}},
            "fp8: e4m3 A and B with per-tensor or block scales, bf16 C, layout rc only; fp32 runs on TF32 tensor "
            "cores"};
  }
  Bound bound() const override { return Bound::compute; }
  std::vector<std::string_view> default_configs() const override {
    return {"configs/gemm_mma.json", "configs/gemm_mma_cluster.json", "configs/gemm_wgmma.json", "configs/gemm_wgmma_cp_async.json",
            "configs/gemm_gemv.json", "configs/gemm_dot.json", "configs/gemm_rows.json"};
  }

  std::vector<std::string> context_names() const override {
    return {"M", "N", "K", "elem_bytes", "out_bytes", "a_row_major", "b_row_major", "lda", "ldb", "ldc",
            "arch", "max_smem", "sm_count", "l2_bytes", "splitk_partial_bytes", "splitk_counters", "block_scaled"};
  }
  std::vector<std::string> placeholder_names() const override {
    return {"ELEMENT", "OUT_ELEMENT", "A_ROW_MAJOR", "B_ROW_MAJOR"};
  }
  std::vector<std::string> tensor_map_operands() const override { return {"A", "B", "C"}; }

  void validate(const Problem& p) const override {
    for (const char* d : {"M", "N", "K"}) {
      const int64_t v = p.dims.at(d);
      if (v <= 0) throw ConfigError(fmt::format("{} must be >= 1 (got {})", d, v));
      if (v > INT32_MAX) throw ConfigError(fmt::format("{} = {} is larger than 2^31-1", d, v));
    }
    if (p.dtype == "fp8" && p.option("layout") != "rc")
      throw ConfigError("dtype fp8 takes layout rc only (A row-major, B column-major: both K-contiguous, the one fp8 "
                        "form of cuBLASLt and of Hopper's wgmma), not '" + p.option("layout") + "'");
    if (p.option("scaling") == "block" && p.dtype != "fp8")
      throw ConfigError("--scaling block takes dtype fp8 (e4m3 values with fp32 scales per block), not " + p.dtype);
  }

  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Shape s(p);
    return {{"M", s.m}, {"N", s.n}, {"K", s.k}, {"elem_bytes", element_bytes(p.dtype)},
            {"out_bytes", out_bytes(p.dtype)}, {"a_row_major", s.a_row}, {"b_row_major", s.b_row},
            {"lda", s.lda()}, {"ldb", s.ldb()}, {"ldc", s.n}, {"arch", arch.arch}, {"max_smem", arch.max_smem},
            {"sm_count", arch.sm_count}, {"l2_bytes", arch.l2_bytes}, {"splitk_partial_bytes", kSplitKPartialBytes},
            {"splitk_counters", kSplitKCounters}, {"block_scaled", s.block_scaled}};
  }

  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    Shape s(p);
    return {{"ELEMENT", element_name(p.dtype)}, {"OUT_ELEMENT", element_name(out_dtype(p.dtype))},
            {"A_ROW_MAJOR", s.a_row ? "1" : "0"}, {"B_ROW_MAJOR", s.b_row ? "1" : "0"}};
  }

  Cost cost(const Problem& p) const override {
    Shape s(p);
    const double eb = static_cast<double>(element_bytes(p.dtype)), ob = static_cast<double>(out_bytes(p.dtype));
    return {2.0 * s.m * s.n * s.k, eb * (s.m * s.k + s.k * s.n) + ob * s.m * s.n};
  }

  int64_t device_bytes(const Problem& p) const override {
    Shape s(p);
    const int64_t inputs = s.m * s.k + s.k * s.n;
    int64_t bytes = element_bytes(p.dtype) * inputs + out_bytes(p.dtype) * s.m * s.n + 4 * s.m * s.n;
    // fp8: the fp32 copies of A and B exist alongside the reference while it is computed.
    if (p.dtype == "fp8") bytes += 4 * inputs + 4 * (s.a_scales() + s.b_scales());  // + the scales
    // A, B, C, the reference, split-K's two buffers, and fp8's two of scales.
    return bytes + kSplitKPartialBytes + kSplitKCounters * 4 + guard_overhead(p.dtype == "fp8" ? 8 : 6);
  }

  Tolerance default_tolerance(const std::string& dtype) const override {
    // Outputs are ~N(0,1); the bounds are a few times the output-rounding error of each type, plus
    // for fp8 the tensor core's unpromoted accumulation (docs/verification.md).
    if (dtype == "fp16") return {5e-3, 5e-3, 1e-3};
    if (dtype == "bf16") return {2e-2, 2e-2, 5e-3};
    if (dtype == "fp8") return {3e-2, 3e-2, 5e-3};
    return {1e-2, 1e-2, 3e-3};  // fp32 problems run on TF32 tensor cores
  }

  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<GemmWorkload>(p, gpu, seed);
  }
  std::vector<LaunchOperand> launch_operands(const Problem& p) const override {
    const Shape s(p);
    const int64_t eb = element_bytes(p.dtype);
    const std::string a = s.a_row ? "row-major" : "column-major", b = s.b_row ? "row-major" : "column-major";
    std::vector<LaunchOperand> ops = {{"A", "M x K " + p.dtype + ", " + a, s.m * s.k * eb},
                                      {"B", "K x N " + p.dtype + ", " + b, s.k * s.n * eb},
                                      {"C", "M x N " + out_dtype(p.dtype) + ", row-major (written)", s.m * s.n * out_bytes(p.dtype)}};
    if (p.dtype == "fp8" && s.block_scaled) {
      ops.push_back({"scale_a", "fp32 per 1 x 128 of A: M x ceil(K/128), M contiguous (cuBLASLt VEC128_32F)",
                     4 * s.a_scales()});
      ops.push_back({"scale_b", "fp32 per 128 x 128 of B: ceil(N/128) rows of ceil(K/128) rounded up to 4 "
                                "(cuBLASLt BLK128x128_32F)", 4 * s.b_scales()});
    } else if (p.dtype == "fp8") {
      ops.push_back({"scale_a", "one float, 16-byte aligned: C = scale_a * scale_b * A*B", 4});
      ops.push_back({"scale_b", "one float, 16-byte aligned", 4});
    }
    ops.push_back({"splitk_partials", "split-K's fp32 partial sums", kSplitKPartialBytes, true});
    ops.push_back({"splitk_arrivals", "split-K's arrival counters (zero between launches)",
                   static_cast<int64_t>(kSplitKCounters * sizeof(unsigned)), true});
    return ops;
  }
  void kernel_arguments(const Problem& p, const std::map<std::string, void*>& operands,
                        const std::vector<TensorMapSpec>& tensor_maps, KernelArguments& out) const override {
    gemm_arguments(p, operands, tensor_maps, out);
  }
  std::vector<KernelParam> kernel_parameters(const Problem& p, const SweepConfig& config) const override {
    const std::string in = element_name(p.dtype), out = element_name(out_dtype(p.dtype));
    std::vector<KernelParam> params = {operand_parameter(config, "A", "const " + in + "*"),
                                       operand_parameter(config, "B", "const " + in + "*"),
                                       {out + "*", "C"}, {"int", "M"}, {"int", "N"}, {"int", "K"}};
    if (config.maps_operand("C")) params.push_back({"CUtensorMap", "C (its TMA descriptor)"});
    // A kernel without per-tensor scales or split-K may end its list before them.
    params.insert(params.end(), {{"const float*", "scale_a", /*may_end_before=*/true},
                                 {"const float*", "scale_b"},
                                 {"float*", "partials", /*may_end_before=*/true},
                                 {"unsigned*", "arrivals"}});
    return params;
  }
};

}  // namespace

const KernelFamily& gemm_family() {
  static const GemmFamily family;
  return family;
}

}  // namespace ktune
