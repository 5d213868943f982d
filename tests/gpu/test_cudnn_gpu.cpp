// The cuDNN baselines on a real GPU, against a CPU reference: softmax (legacy API) and LayerNorm /
// RMSNorm (graph API: one norm-forward node, heuristics, plan, variant pack), including the
// per-row statistics and a change of epsilon between runs. Skips where there is no GPU or cuDNN.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/cudnn.hpp"
#include "cuda/resources.hpp"
#include "gpu_test_support.hpp"

namespace ktune {
namespace {

#define KTUNE_REQUIRE_CUDNN()                                                          \
  do {                                                                                 \
    KTUNE_REQUIRE_GPU();                                                               \
    if (!cuda::cudnn_available()) GTEST_SKIP() << cuda::cudnn_unavailable_reason(); \
  } while (0)

size_t element_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

// A device tensor of `dtype` holding `values` rounded to it; `rounded` gets what the GPU sees.
cuda::DeviceBuffer upload(const std::vector<float>& values, const std::string& dtype, std::vector<float>& rounded) {
  std::vector<char> bytes(values.size() * element_bytes(dtype));
  rounded.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == "fp32") {
      std::memcpy(&bytes[i * 4], &values[i], 4);
      rounded[i] = values[i];
    } else if (dtype == "fp16") {
      __half h = __float2half(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
      rounded[i] = __half2float(h);
    } else {
      __nv_bfloat16 h = __float2bfloat16(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
      rounded[i] = __bfloat162float(h);
    }
  }
  cuda::DeviceBuffer buffer(bytes.size());
  KTUNE_CUDA(cudaMemcpy(buffer.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  return buffer;
}

std::vector<float> download(const cuda::DeviceBuffer& buffer, const std::string& dtype) {
  std::vector<char> bytes(buffer.bytes());
  KTUNE_CUDA(cudaMemcpy(bytes.data(), buffer.get(), bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<float> values(bytes.size() / element_bytes(dtype));
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == "fp32") {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else if (dtype == "fp16") {
      __half h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = __half2float(h);
    } else {
      __nv_bfloat16 h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = __bfloat162float(h);
    }
  }
  return values;
}

double max_error(const std::vector<float>& got, const std::vector<float>& want) {
  double m = 0;
  for (size_t i = 0; i < got.size(); ++i) m = std::max(m, static_cast<double>(std::fabs(got[i] - want[i])));
  return m;
}

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.5f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

// Output tolerance for values of magnitude up to ~30 (x ~ N(0.5, 2) times scale ~ N(0.5, 2)).
double tolerance(const std::string& dtype) { return dtype == "fp32" ? 1e-3 : dtype == "fp16" ? 3e-2 : 2.5e-1; }

class CudnnSoftmaxGpu : public ::testing::TestWithParam<std::string> {};

TEST_P(CudnnSoftmaxGpu, MatchesTheReference) {
  KTUNE_REQUIRE_CUDNN();
  const std::string dtype = GetParam();
  const int64_t rows = 300, cols = 1000;
  cuda::Stream stream;
  cuda::CudnnHandle handle(stream.get());
  std::vector<float> x;
  cuda::DeviceBuffer dx = upload(random_values(rows * cols, 1), dtype, x);
  cuda::DeviceBuffer dy(dx.bytes());
  cuda::CudnnSoftmax softmax(handle, dtype, rows, cols);
  softmax.run(dx.get(), dy.get(), stream.get());
  KTUNE_CUDA(cudaStreamSynchronize(stream.get()));

  std::vector<float> want(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = &x[r * cols];
    double top = *std::max_element(row, row + cols), sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - top);
    for (int64_t c = 0; c < cols; ++c) want[r * cols + c] = static_cast<float>(std::exp(row[c] - top) / sum);
  }
  EXPECT_LT(max_error(download(dy, dtype), want), dtype == "fp32" ? 1e-5 : dtype == "fp16" ? 2e-3 : 1.6e-2);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, CudnnSoftmaxGpu, ::testing::Values("fp32", "fp16", "bf16"));

struct NormCase {
  cuda::CudnnNormKind kind;
  bool bias;
  std::string dtype;
};

class CudnnNormGpu : public ::testing::TestWithParam<NormCase> {};

TEST_P(CudnnNormGpu, MatchesTheReferenceAndTakesEachEpsilon) {
  KTUNE_REQUIRE_CUDNN();
  const auto& [kind, with_bias, dtype] = GetParam();
  const bool layer_norm = kind == cuda::CudnnNormKind::layer_norm;
  const int64_t rows = 333, cols = 1000;
  cuda::Stream stream;
  cuda::CudnnHandle handle(stream.get());
  cuda::CudnnNorm norm(handle, kind, dtype, rows, cols, with_bias);
  std::printf("%s %s%s: %s, workspace %zu bytes\n", std::string(cuda::to_string(kind)).c_str(), dtype.c_str(),
              with_bias ? " +bias" : "", norm.engine().c_str(), norm.workspace_bytes());

  std::vector<float> x, scale, bias;
  cuda::DeviceBuffer dx = upload(random_values(rows * cols, 2), dtype, x);
  cuda::DeviceBuffer dscale = upload(random_values(cols, 3), dtype, scale);
  cuda::DeviceBuffer dbias = with_bias ? upload(random_values(cols, 4), dtype, bias) : cuda::DeviceBuffer();
  cuda::DeviceBuffer dy(dx.bytes()), dmean(layer_norm ? rows * 4 : 0), drstd(rows * 4);
  cuda::DeviceBuffer workspace(norm.workspace_bytes());

  for (float eps : {1e-5f, 100.0f}) {  // the second run must not reuse the first one's epsilon
    norm.run(dx.get(), dscale.get(), with_bias ? dbias.get() : nullptr, eps, dy.get(), dmean.as<float>(),
             drstd.as<float>(), stream.get(), workspace.get());
    KTUNE_CUDA(cudaStreamSynchronize(stream.get()));
    std::vector<float> want_y(x.size()), want_mean(rows), want_rstd(rows);
    for (int64_t r = 0; r < rows; ++r) {
      const float* row = &x[r * cols];
      double mean = 0, squares = 0;
      if (layer_norm) {
        for (int64_t c = 0; c < cols; ++c) mean += row[c];
        mean /= cols;
      }
      for (int64_t c = 0; c < cols; ++c) squares += (row[c] - mean) * (row[c] - mean);
      double rstd = 1.0 / std::sqrt(squares / cols + eps);
      want_mean[r] = static_cast<float>(mean);
      want_rstd[r] = static_cast<float>(rstd);
      for (int64_t c = 0; c < cols; ++c)
        want_y[r * cols + c] = static_cast<float>((row[c] - mean) * rstd * scale[c] + (with_bias ? bias[c] : 0));
    }
    EXPECT_LT(max_error(download(dy, dtype), want_y), tolerance(dtype)) << "eps " << eps;
    EXPECT_LT(max_error(download(drstd, "fp32"), want_rstd), 1e-4) << "eps " << eps;
    if (layer_norm) {
      EXPECT_LT(max_error(download(dmean, "fp32"), want_mean), 1e-4) << "eps " << eps;
    }
  }
}

TEST_P(CudnnNormGpu, PointersThatContradictTheConstructionAreRefused) {
  KTUNE_REQUIRE_CUDNN();
  const auto& [kind, with_bias, dtype] = GetParam();
  cuda::CudnnHandle handle;
  cuda::CudnnNorm norm(handle, kind, dtype, 64, 256, with_bias);
  cuda::DeviceBuffer buffer(64 * 256 * 4);
  void* p = buffer.get();
  float* f = buffer.as<float>();
  const bool layer_norm = kind == cuda::CudnnNormKind::layer_norm;
  EXPECT_THROW(norm.run(p, p, with_bias ? nullptr : p, 1e-5f, p, layer_norm ? f : nullptr, f, nullptr, p), Error);
  EXPECT_THROW(norm.run(p, p, with_bias ? p : nullptr, 1e-5f, p, layer_norm ? nullptr : f, f, nullptr, p), Error);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, CudnnNormGpu,
    ::testing::Values(NormCase{cuda::CudnnNormKind::layer_norm, true, "fp32"},
                      NormCase{cuda::CudnnNormKind::layer_norm, true, "fp16"},
                      NormCase{cuda::CudnnNormKind::layer_norm, true, "bf16"},
                      NormCase{cuda::CudnnNormKind::rms_norm, false, "fp32"},
                      NormCase{cuda::CudnnNormKind::rms_norm, false, "bf16"},
                      NormCase{cuda::CudnnNormKind::rms_norm, true, "fp16"}),
    [](const ::testing::TestParamInfo<NormCase>& info) {
      return std::string(cuda::to_string(info.param.kind)) + (info.param.bias ? "_bias_" : "_") + info.param.dtype;
    });

}  // namespace
}  // namespace ktune
