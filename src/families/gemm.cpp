// GEMM: C[M,N] = A[M,K] * B[K,N], C row-major, A and B each row- or column-major.
// Inputs: A ~ N(0,1), B ~ N(0,1)/sqrt(K), so every output is about N(0,1) whatever K is and the
// tolerances mean the same thing for every shape. The reference is cuBLAS with fp32 output and
// pedantic fp32 compute; the baseline timed against candidates is cuBLAS in the problem's own
// dtype (fp32 problems on TF32 tensor cores, as the candidates).
#include <cublas_v2.h>
#include <fmt/format.h>

#include <cmath>

#include "cuda/check.hpp"
#include "cuda/driver.hpp"
#include "families/family.hpp"
#include "tune/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

int64_t element_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

cudaDataType_t cuda_type(const std::string& dtype) {
  if (dtype == "fp16") return CUDA_R_16F;
  if (dtype == "bf16") return CUDA_R_16BF;
  return CUDA_R_32F;
}

struct Shape {
  int64_t m, n, k;
  bool a_row, b_row;
  explicit Shape(const Problem& p)
      : m(p.dims.at("M")), n(p.dims.at("N")), k(p.dims.at("K")),
        a_row(p.layout[0] == 'r'), b_row(p.layout[1] == 'r') {}
  int64_t lda() const { return a_row ? k : m; }
  int64_t ldb() const { return b_row ? n : k; }
};

class GemmWorkload : public Workload {
 public:
  GemmWorkload(const Problem& p, GpuContext& gpu, uint64_t seed)
      : gpu_(gpu), dtype_(p.dtype), shape_(p) {
    const int64_t eb = element_bytes(dtype_);
    a_ = cuda::DeviceBuffer(shape_.m * shape_.k * eb);
    b_ = cuda::DeviceBuffer(shape_.k * shape_.n * eb);
    c_ = cuda::DeviceBuffer(shape_.m * shape_.n * eb);
    ref_ = cuda::DeviceBuffer(shape_.m * shape_.n * sizeof(float));
    gpu_.fill_normal(a_.get(), dtype_, shape_.m * shape_.k, seed, 1.0f);
    gpu_.fill_normal(b_.get(), dtype_, shape_.k * shape_.n, seed + 1,
                     static_cast<float>(1.0 / std::sqrt(static_cast<double>(shape_.k))));
    KTUNE_CUDA(cudaMemsetAsync(ref_.get(), 0xff, ref_.bytes(), gpu_.stream()));
    gemm(ref_.get(), CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
    KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));

    a_ptr_ = a_.get();
    b_ptr_ = b_.get();
    c_ptr_ = c_.get();
    m_ = static_cast<int>(shape_.m);
    n_ = static_cast<int>(shape_.n);
    k_ = static_cast<int>(shape_.k);
  }

  std::vector<void*> kernel_args(const std::vector<TensorMapSpec>& tensor_maps) override {
    std::vector<void*> args = {&a_ptr_, &b_ptr_, &c_ptr_, &m_, &n_, &k_};
    maps_.assign(tensor_maps.size(), CUtensorMap{});
    for (size_t i = 0; i < tensor_maps.size(); ++i) {
      const TensorMapSpec& t = tensor_maps[i];
      const bool is_a = t.operand == "A";
      if (!is_a && t.operand != "B") throw Error("gemm has no operand " + t.operand + " to pass as a tensor map");
      encode(maps_[i], t, is_a ? a_.get() : b_.get(), is_a ? shape_.a_row : shape_.b_row,
             is_a ? shape_.m : shape_.k, is_a ? shape_.k : shape_.n);
      args[is_a ? 0 : 1] = &maps_[i];
    }
    return args;
  }

  void poison_output() override {
    // 0xFF bytes are NaN in fp16, bf16 and fp32 alike.
    KTUNE_CUDA(cudaMemsetAsync(c_.get(), 0xff, c_.bytes(), gpu_.stream()));
  }

  ErrorStats check_output(const Tolerance& t) override {
    return gpu_.compare(c_.get(), dtype_, ref_.as<float>(), shape_.m * shape_.n, t.atol, t.rtol);
  }

  void run_baseline() override {
    gemm(c_.get(), cuda_type(dtype_),
         dtype_ == "fp32" ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F);
  }

  std::string baseline_name() const override {
    return dtype_ == "fp32" ? "cublasGemmEx (tf32 tensor cores)" : "cublasGemmEx (" + dtype_ + ", fp32 accumulate)";
  }

 private:
  // A rows x cols operand, row- or column-major, as a 2-D tensor map (innermost dimension first).
  void encode(CUtensorMap& map, const TensorMapSpec& t, void* base, bool row_major, int64_t rows, int64_t cols) {
    const int64_t eb = element_bytes(dtype_);
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(row_major ? cols : rows),
                                static_cast<cuuint64_t>(row_major ? rows : cols)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>((row_major ? cols : rows) * eb)};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(t.box[0]), static_cast<cuuint32_t>(t.box[1])};
    const cuuint32_t element_strides[2] = {1, 1};
    const CUtensorMapDataType type = dtype_ == "fp16"   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                     : dtype_ == "bf16" ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                        : CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const CUtensorMapSwizzle swizzle = t.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                       : t.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                       : t.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                         : CU_TENSOR_MAP_SWIZZLE_NONE;
    KTUNE_CU(cuda::driver().tensor_map_encode_tiled(&map, type, 2, base, dims, strides, box, element_strides,
                                                    CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                    CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  }

  // Row-major C = A*B is column-major C^T = B^T * A^T: hand cuBLAS B first.
  void gemm(void* c, cudaDataType_t c_type, cublasComputeType_t compute) {
    const float alpha = 1.0f, beta = 0.0f;
    const cudaDataType_t t = cuda_type(dtype_);
    KTUNE_CUBLAS(cublasGemmEx(gpu_.cublas(), shape_.b_row ? CUBLAS_OP_N : CUBLAS_OP_T,
                              shape_.a_row ? CUBLAS_OP_N : CUBLAS_OP_T, static_cast<int>(shape_.n),
                              static_cast<int>(shape_.m), static_cast<int>(shape_.k), &alpha, b_.get(), t,
                              static_cast<int>(shape_.ldb()), a_.get(), t, static_cast<int>(shape_.lda()),
                              &beta, c, c_type, static_cast<int>(shape_.n), compute, CUBLAS_GEMM_DEFAULT));
  }

  GpuContext& gpu_;
  std::string dtype_;
  Shape shape_;
  cuda::DeviceBuffer a_, b_, c_, ref_;
  void *a_ptr_ = nullptr, *b_ptr_ = nullptr, *c_ptr_ = nullptr;
  std::vector<CUtensorMap> maps_;
  int m_ = 0, n_ = 0, k_ = 0;
};

class GemmFamily : public KernelFamily {
 public:
  std::string_view name() const override { return "gemm"; }
  std::vector<std::string_view> default_configs() const override {
    return {"configs/gemm_mma.json", "configs/gemm_wgmma.json"};
  }

  std::vector<std::string> context_names() const override {
    return {"M", "N", "K", "elem_bytes", "a_row_major", "b_row_major", "lda", "ldb", "ldc",
            "arch", "max_smem", "sm_count"};
  }
  std::vector<std::string> placeholder_names() const override {
    return {"ELEMENT", "A_ROW_MAJOR", "B_ROW_MAJOR"};
  }

  void validate(const Problem& p) const override {
    for (const char* d : {"M", "N", "K"}) {
      auto it = p.dims.find(d);
      if (it == p.dims.end()) throw ConfigError(fmt::format("gemm problem is missing {}", d));
      if (it->second <= 0) throw ConfigError(fmt::format("{} must be >= 1 (got {})", d, it->second));
      if (it->second > INT32_MAX) throw ConfigError(fmt::format("{} = {} is larger than 2^31-1", d, it->second));
    }
    if (p.dtype != "fp16" && p.dtype != "bf16" && p.dtype != "fp32")
      throw ConfigError("unknown dtype '" + p.dtype + "' (fp16, bf16 or fp32)");
    if (p.layout.size() != 2 || (p.layout[0] != 'r' && p.layout[0] != 'c') ||
        (p.layout[1] != 'r' && p.layout[1] != 'c'))
      throw ConfigError("unknown layout '" + p.layout + "' (two letters, A then B: r = row-major, c = column-major)");
  }

  Bindings context(const Problem& p, const ArchFacts& arch) const override {
    Shape s(p);
    return {{"M", s.m}, {"N", s.n}, {"K", s.k}, {"elem_bytes", element_bytes(p.dtype)},
            {"a_row_major", s.a_row}, {"b_row_major", s.b_row}, {"lda", s.lda()}, {"ldb", s.ldb()},
            {"ldc", s.n}, {"arch", arch.arch}, {"max_smem", arch.max_smem}, {"sm_count", arch.sm_count}};
  }

  std::map<std::string, std::string> placeholders(const Problem& p) const override {
    Shape s(p);
    const char* element = p.dtype == "fp16" ? "__half" : p.dtype == "bf16" ? "__nv_bfloat16" : "float";
    return {{"ELEMENT", element}, {"A_ROW_MAJOR", s.a_row ? "1" : "0"}, {"B_ROW_MAJOR", s.b_row ? "1" : "0"}};
  }

  Cost cost(const Problem& p) const override {
    Shape s(p);
    const double eb = static_cast<double>(element_bytes(p.dtype));
    return {2.0 * s.m * s.n * s.k, eb * (s.m * s.k + s.k * s.n + s.m * s.n)};
  }

  int64_t device_bytes(const Problem& p) const override {
    Shape s(p);
    return element_bytes(p.dtype) * (s.m * s.k + s.k * s.n + s.m * s.n) + 4 * s.m * s.n;
  }

  Tolerance default_tolerance(const std::string& dtype) const override {
    // Outputs are ~N(0,1); the bounds are a few times the output-rounding error of each type
    // (README: "Verification tolerances").
    if (dtype == "fp16") return {5e-3, 5e-3, 1e-3};
    if (dtype == "bf16") return {2e-2, 2e-2, 5e-3};
    return {1e-2, 1e-2, 3e-3};  // fp32 problems run on TF32 tensor cores
  }

  std::unique_ptr<Workload> prepare(const Problem& p, GpuContext& gpu, uint64_t seed) const override {
    return std::make_unique<GemmWorkload>(p, gpu, seed);
  }
};

}  // namespace

const KernelFamily& gemm_family() {
  static const GemmFamily family;
  return family;
}

}  // namespace ktune
