// The memory-bound families on the GPU: every default sweep's candidates (spread over every value
// of every tunable) against the family's reference on ragged sizes in every dtype, each on fresh
// random inputs with a poisoned output; every baseline runs; and a planted wrong kernel per family
// is rejected as incorrect, not timed.
#include <fmt/format.h>

#include <set>

#include "compile/compile_all.hpp"
#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "family_test_support.hpp"
#include "gpu_test_support.hpp"

namespace ktune {
namespace {

TEST(MemoryBoundGpu, AddMatchesItsReferenceOnRaggedSizesEveryDtype) {
  KTUNE_REQUIRE_GPU();
  std::vector<Problem> problems;
  for (int64_t n : {1, 7, 1000003, 4194305})
    for (std::string dtype : {"fp32", "fp16", "bf16"}) problems.push_back({"add", {{"N", n}}, dtype, {}});
  Checked c = check_default_sweeps("add", problems);
  EXPECT_GE(c.runs, static_cast<int>(problems.size()) * 3);
}

TEST(MemoryBoundGpu, SoftmaxMatchesItsReferenceOnEveryRowLengthKindEveryDtype) {
  KTUNE_REQUIRE_GPU();
  std::vector<Problem> problems;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1},     {3, 7},      {257, 64},  {33, 1023},
                                                           {5, 4096},  {7, 32769},  {2, 100002}, {3, 262144}};
  for (const auto& [rows, cols] : shapes)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back({"softmax", {{"rows", rows}, {"cols", cols}}, dtype, {}});
  Checked c = check_default_sweeps("softmax", problems);
  EXPECT_TRUE(c.configs.count("softmax"));
  EXPECT_TRUE(c.configs.count("softmax_looped"));
}

TEST(MemoryBoundGpu, APlantedWrongAddIsRejected) {
  KTUNE_REQUIRE_GPU();
  // Off by one at the end: the last element is never written (it stays poisoned).
  const std::string source = R"(
    extern "C" __global__ void planted_add(const float* a, const float* b, float* c, long long n) {
      long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (i < n - 1) c[i] = a[i] + b[i];
    })";
  Launch l;
  l.block[0] = 256;
  l.grid[0] = (1000003 + 255) / 256;
  expect_rejected({"add", {{"N", 1000003}}, "fp32", {}}, source, "planted_add", l);
}

TEST(MemoryBoundGpu, APlantedWrongSoftmaxIsRejected) {
  KTUNE_REQUIRE_GPU();
  // Normalizes each row by the sum of all but its last exponential: off by about 1/cols.
  const std::string source = R"(
    extern "C" __global__ void planted_softmax(const float* x, float* y, long long rows, int cols) {
      long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (r >= rows) return;
      const float* in = x + r * cols;
      float m = in[0];
      for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
      float s = 0;
      for (int c = 0; c + 1 < cols; ++c) s += expf(in[c] - m);
      for (int c = 0; c < cols; ++c) y[r * cols + c] = expf(in[c] - m) / s;
    })";
  Launch l;
  l.block[0] = 128;
  l.grid[0] = (300 + 127) / 128;
  expect_rejected({"softmax", {{"rows", 300}, {"cols", 100}}, "fp32", {}}, source, "planted_softmax", l);
}

}  // namespace
}  // namespace ktune
