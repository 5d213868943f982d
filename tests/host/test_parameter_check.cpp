// A kernel's parameter list against the arguments its family passes, checked by NVRTC as it
// compiles (compile/parameter_check.hpp): what matches, what does not and what the message says,
// and kernels disguised as built-in families (a scale-and-add under "add", a RoPE under
// "softmax") refused by `ktune compile`, offline, instead of crashing or failing on the GPU.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

#include "compile/nvrtc_compiler.hpp"
#include "compile/parameter_check.hpp"
#include "run_ktune.hpp"


namespace ktune {
namespace {

namespace fs = std::filesystem;

class ParameterCheck : public ::testing::Test {
 protected:
  // Compiles `kernel` (one kernel named k, or the template k<float>) with the check against `params`.
  CompileInfo compile(const std::string& kernel, const std::vector<KernelParam>& params,
                      const std::string& name = "k<float>") {
    NvrtcCompiler compiler(fs::temp_directory_path() / "ktune-parameter-check-cache");
    CompileRequest r;
    r.source_name = "k.cu";
    r.source_text = "#include <cuda_fp16.h>\ntypedef long int64_t;  // as <cstdint> has it on LP64\n" + kernel + parameter_check(name, params);
    r.name_expression = name;
    r.arch = "sm_80";
    return compiler.compile(r);
  }
  const std::vector<KernelParam> add_ = {{"const __half*", "A"}, {"const __half*", "B"}, {"__half*", "C"}, {"long long", "N"}};
};

TEST_F(ParameterCheck, TheSameTypesOrTheirSpellingsPass) {
  const CompileInfo same = compile("template <class T> __global__ void k(const __half* a, const __half* b, __half* c, long long n) {}",
                                   add_);
  EXPECT_TRUE(same.ok) << same.log;
  // Typedefs, a dropped const on an input, int64_t for long long (same size and kind), restrict.
  EXPECT_TRUE(compile("typedef __half h; template <class T> __global__ void k(h* __restrict__ a, const h* b, h* c, int64_t n) {}",
                      add_).ok);
  EXPECT_TRUE(compile("extern \"C\" __global__ void plain(const __half* a, const __half* b, __half* c, long long n) {}", add_,
                      "plain")
                  .ok);
}

TEST_F(ParameterCheck, AWrongTypeOrCountFailsNamingTheParameter) {
  CompileInfo wrong_type = compile("template <class T> __global__ void k(const __half* a, const float* b, __half* c, long long n) {}", add_);
  ASSERT_FALSE(wrong_type.ok);
  EXPECT_NE(wrong_type.log.find("parameter 2 of k<float> must be const __half* (B)"), std::string::npos) << wrong_type.log;

  CompileInfo narrow = compile("template <class T> __global__ void k(const __half* a, const __half* b, __half* c, int n) {}", add_);
  ASSERT_FALSE(narrow.ok);
  EXPECT_NE(narrow.log.find("parameter 4 of k<float> must be long long (N)"), std::string::npos) << narrow.log;

  CompileInfo fewer = compile("template <class T> __global__ void k(const __half* a, __half* c, long long n) {}", add_);
  ASSERT_FALSE(fewer.ok);
  EXPECT_NE(fewer.log.find("must take 4 parameters"), std::string::npos) << fewer.log;

  // An output the kernel promises not to write is a mistake too.
  CompileInfo const_out = compile("template <class T> __global__ void k(const __half* a, const __half* b, const __half* c, long long n) {}", add_);
  ASSERT_FALSE(const_out.ok);
  EXPECT_NE(const_out.log.find("parameter 3"), std::string::npos) << const_out.log;

  // A float where an int is passed: same size, another kind.
  CompileInfo real = compile("template <class T> __global__ void k(const __half* a, const __half* b, __half* c, double n) {}", add_);
  EXPECT_FALSE(real.ok);
}

TEST_F(ParameterCheck, AnOptionalTailMayBeLeftOut) {
  std::vector<KernelParam> softmax = {{"const float*", "X"}, {"float*", "Y"}, {"long long", "rows"}, {"int", "cols"},
                                      {"float2*", "partials", true}, {"unsigned*", "counters"}};
  EXPECT_TRUE(compile("template <class T> __global__ void k(const T* x, T* y, long long r, int c) {}", softmax).ok);
  EXPECT_TRUE(compile("template <class T> __global__ void k(const T* x, T* y, long long r, int c, float2* p, unsigned* n) {}",
                      softmax)
                  .ok);
  EXPECT_FALSE(compile("template <class T> __global__ void k(const T* x, T* y, long long r) {}", softmax).ok);
  EXPECT_FALSE(compile("template <class T> __global__ void k(const T* x, T* y, long long r, int c, float* p, unsigned* n) {}",
                       softmax)
                   .ok);
}

TEST(ParameterCheckCli, KernelsDisguisedAsBuiltInFamiliesAreRefusedOffline) {
  using test::run_ktune;
  const fs::path dir = fs::temp_directory_path() / "ktune-disguised";
  fs::remove_all(dir);
  fs::create_directories(dir);
  // A scale-and-add (y = alpha * x + y, in place) under "add": four parameters, the wrong ones.
  std::ofstream(dir / "scale_add.cu") << R"(#include <cuda_fp16.h>
template <typename T, int BLOCK>
__global__ void scale_add(const T* x, T* y, float alpha, long long n) {
  long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
  if (i < n) y[i] = __float2half(alpha * __half2float(x[i]) + __half2float(y[i]));
}
)";
  std::ofstream(dir / "scale_add.json") << R"json({
  "name": "scale_add", "family": "add", "kernel": "scale_add.cu",
  "kernel_name": "scale_add<{ELEMENT}, {BLOCK}>",
  "parameters": {"BLOCK": [128, 256]},
  "launch": {"grid": ["cdiv(N, BLOCK)", "1", "1"], "block": ["BLOCK", "1", "1"]},
  "dtypes": ["fp16"]
})json";
  const test::Ran add = run_ktune("compile add --n 4096 --dtype fp16 --arch sm_80 --no-progress --config " + (dir / "scale_add.json").string() +
                      " --cache-dir " + (dir / "cache").string());
  EXPECT_EQ(add.exit_code, 1) << add.output;
  EXPECT_NE(add.output.find("compile_failed"), std::string::npos) << add.output;
  EXPECT_NE(add.output.find("parameter 3 of scale_add<__half, 128> must be __half* (C)"), std::string::npos)
      << add.output;

  // A 7-parameter RoPE under "softmax".
  std::ofstream(dir / "rope.cu") << R"(#include <cuda_bf16.h>
template <typename T, int BLOCK>
__global__ void rope(const T* x, const float* cos, const float* sin, T* y, int tokens, int heads, int dim) {}
)";
  std::ofstream(dir / "rope.json") << R"json({
  "name": "rope_as_softmax", "family": "softmax", "kernel": "rope.cu",
  "kernel_name": "rope<{ELEMENT}, {BLOCK}>",
  "parameters": {"BLOCK": [128]},
  "launch": {"grid": ["rows", "1", "1"], "block": ["BLOCK", "1", "1"]},
  "dtypes": ["bf16"]
})json";
  const test::Ran softmax = run_ktune("compile softmax --rows 64 --cols 128 --dtype bf16 --arch sm_80 --no-progress --config " +
                          (dir / "rope.json").string() + " --cache-dir " + (dir / "cache").string());
  EXPECT_EQ(softmax.exit_code, 1) << softmax.output;
  EXPECT_NE(softmax.output.find("must take 4 or 6 parameters"), std::string::npos) << softmax.output;
}

}  // namespace
}  // namespace ktune
