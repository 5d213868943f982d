// NvrtcCompiler against the real NVRTC (no GPU needed): cubins for sm_80 and sm_90a, failures as
// data, the on-disk cache (hits, misses, damaged entries), and compile_all's pool with a fake.
#include <cuda.h>  // CUDA_VERSION: the toolkit these tests were built against
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compile/compile_all.hpp"
#include "compile/embedded.hpp"
#include "core/element.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader = R"(#pragma once
template <int N> constexpr int twice() { return 2 * N; }
)";

// One templated kernel with N floats of static shared memory: the figures are predictable.
constexpr const char* kSource = R"(#include "tiny_math.cuh"
template <typename T, int N>
__global__ void tiny_scale(T* x, T a) {
  __shared__ T buf[N];
  int i = blockIdx.x * N + threadIdx.x;
  buf[threadIdx.x] = x[i];
  __syncthreads();
  x[i] = a * buf[(threadIdx.x + twice<N>() - 1) % N];
}
)";

CompileRequest tiny_request(const std::string& arch, int n = 128) {
  CompileRequest request;
  request.source_name = "kernels/tiny_scale.cu";
  request.source_text = kSource;
  request.headers = {{"tiny_math.cuh", kHeader}};
  request.name_expression = "tiny_scale<float, " + std::to_string(n) + ">";
  request.arch = arch;
  return request;
}

CompileRequest source_request(const std::string& source, const std::string& arch = "sm_80") {
  CompileRequest request;
  request.source_name = "kernels/probe.cu";
  request.source_text = source;
  request.arch = arch;
  return request;
}

class NvrtcCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = fs::temp_directory_path() /
           ("ktune_test_nvrtc_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path cubins() const { return dir_ / "cubins"; }
  // The json of the only cache entry.
  fs::path only_json() const {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(cubins()))
      if (entry.path().extension() == ".json") found.push_back(entry.path());
    EXPECT_EQ(found.size(), 1u);
    return found.empty() ? fs::path() : found.front();
  }

  fs::path dir_;
};

TEST_F(NvrtcCompilerTest, CompilesForSm80) {
  NvrtcCompiler compiler(dir_);
  CompileInfo info = compiler.compile(tiny_request("sm_80"));
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_FALSE(info.from_cache);
  EXPECT_GT(info.registers, 0);
  EXPECT_EQ(info.static_smem, 128 * 4);
  EXPECT_EQ(info.spill_stores, 0);
  EXPECT_EQ(info.lowered_name, "_Z10tiny_scaleIfLi128EEvPT_S0_");
  EXPECT_TRUE(info.log.empty()) << info.log;  // nothing went wrong, so no log is kept
  EXPECT_GT(info.compile_ms, 0.0);
  ASSERT_FALSE(info.cubin_path.empty());
  EXPECT_EQ(fs::path(info.cubin_path).parent_path(), cubins());
  EXPECT_EQ(read_file(info.cubin_path).substr(0, 4), "\x7f" "ELF");
}

TEST_F(NvrtcCompilerTest, CompilesForSm90a) {
  NvrtcCompiler compiler(dir_);
  CompileInfo hopper = compiler.compile(tiny_request("sm_90a"));
  ASSERT_TRUE(hopper.ok) << hopper.log;
  EXPECT_GT(hopper.registers, 0);
  EXPECT_EQ(hopper.lowered_name, "_Z10tiny_scaleIfLi128EEvPT_S0_");
  ASSERT_TRUE(fs::exists(hopper.cubin_path));
  EXPECT_EQ(read_file(hopper.cubin_path).substr(0, 4), "\x7f" "ELF");
  CompileInfo ampere = compiler.compile(tiny_request("sm_80"));
  EXPECT_NE(ampere.cubin_path, hopper.cubin_path);  // the arch is part of the key
}

TEST_F(NvrtcCompilerTest, SecondCompileIsFromCache) {
  NvrtcCompiler compiler(dir_);
  CompileInfo first = compiler.compile(tiny_request("sm_80"));
  ASSERT_TRUE(first.ok) << first.log;
  // A fresh compiler on the same folder: the hit comes from disk, not from memory.
  NvrtcCompiler again(dir_);
  CompileInfo second = again.compile(tiny_request("sm_80"));
  EXPECT_TRUE(second.ok);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin_path, first.cubin_path);
  EXPECT_EQ(second.registers, first.registers);
  EXPECT_EQ(second.static_smem, first.static_smem);
  EXPECT_EQ(second.lowered_name, first.lowered_name);
}

TEST_F(NvrtcCompilerTest, ChangedOptionOrHeaderIsAMiss) {
  NvrtcCompiler compiler(dir_);
  CompileInfo plain = compiler.compile(tiny_request("sm_80"));
  ASSERT_TRUE(plain.ok) << plain.log;

  CompileRequest with_option = tiny_request("sm_80");
  with_option.extra_options = {"-DKTUNE_TEST_UNUSED=1"};
  CompileInfo optioned = compiler.compile(with_option);
  EXPECT_TRUE(optioned.ok);
  EXPECT_FALSE(optioned.from_cache);
  EXPECT_NE(optioned.cubin_path, plain.cubin_path);
  EXPECT_TRUE(compiler.compile(with_option).from_cache);
  with_option.extra_options = {"-DKTUNE_TEST_UNUSED=2"};  // same count, another value
  EXPECT_FALSE(compiler.compile(with_option).from_cache);

  CompileRequest other_header = tiny_request("sm_80");
  other_header.headers[0].second += "// changed\n";
  EXPECT_FALSE(compiler.compile(other_header).from_cache);
}

TEST_F(NvrtcCompilerTest, SyntaxErrorIsDataAndIsCached) {
  NvrtcCompiler compiler(dir_);
  CompileRequest broken = source_request(
      "template <int N> __global__ void bad(float* p) { p[0] = N +; }\n");
  broken.name_expression = "bad<3>";
  CompileInfo info = compiler.compile(broken);
  EXPECT_FALSE(info.ok);
  EXPECT_FALSE(info.from_cache);
  EXPECT_NE(info.log.find("kernels/probe.cu(1): error: expected an expression"),
            std::string::npos) << info.log;
  EXPECT_NE(info.log.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << info.log;
  EXPECT_EQ(info.registers, -1);
  EXPECT_TRUE(info.cubin_path.empty());

  CompileInfo again = compiler.compile(broken);
  EXPECT_FALSE(again.ok);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.log, info.log);
  EXPECT_TRUE(again.cubin_path.empty());
}

TEST_F(NvrtcCompilerTest, PtxasFailureKeepsItsFigures) {
  NvrtcCompiler compiler(dir_);
  CompileInfo info = compiler.compile(source_request(
      "__global__ void big(float* p) { __shared__ float s[60000]; s[threadIdx.x] = p[threadIdx.x];"
      " __syncthreads(); p[threadIdx.x] = s[threadIdx.x ^ 1]; }\n"));
  EXPECT_FALSE(info.ok);
  EXPECT_EQ(info.static_smem, 240000);
  EXPECT_NE(info.log.find("NVRTC_ERROR_COMPILATION"), std::string::npos) << info.log;
}

TEST_F(NvrtcCompilerTest, WarningsKeepTheLogOnSuccess) {
  NvrtcCompiler compiler(dir_);
  CompileInfo info = compiler.compile(
      source_request("__global__ void w(float* p) { int unused = 3; p[0] = 1; }\n"));
  ASSERT_TRUE(info.ok) << info.log;
  EXPECT_NE(info.log.find("\"unused\" was declared but never referenced"), std::string::npos)
      << info.log;
}

TEST_F(NvrtcCompilerTest, SetmaxnregWithoutLaunchBoundsIsFlagged) {
  NvrtcCompiler compiler(dir_);
  CompileInfo info = compiler.compile(source_request(R"(
__global__ void ws(float* p) {
  if (threadIdx.x < 128) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
  else asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  p[threadIdx.x] = 1.0f;
}
)", "sm_90a"));
  ASSERT_TRUE(info.ok) << info.log;
  ASSERT_EQ(info.perf_warnings.size(), 1u);
  EXPECT_TRUE(info.perf_warnings[0].starts_with("(C7508)")) << info.perf_warnings[0];
  CompileInfo cached = compiler.compile(source_request(R"(
__global__ void ws(float* p) {
  if (threadIdx.x < 128) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
  else asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  p[threadIdx.x] = 1.0f;
}
)", "sm_90a"));
  EXPECT_TRUE(cached.from_cache);
  EXPECT_EQ(cached.perf_warnings, info.perf_warnings);
}

TEST_F(NvrtcCompilerTest, DamagedCacheJsonIsAMiss) {
  const std::vector<std::string> damaged = {
      "",                                          // torn before anything was written
      "{\"format\": 1, \"ok\": tr",                // torn halfway
      "[1, 2, 3]",                                 // json, but not an object
      "{\"format\": 1, \"ok\": \"yes\"}",          // fields missing / of the wrong type
  };
  NvrtcCompiler compiler(dir_);
  ASSERT_TRUE(compiler.compile(tiny_request("sm_80")).ok);
  for (const std::string& text : damaged) {
    fs::path json = only_json();
    write_file_atomic(json, text);
    CompileInfo info = compiler.compile(tiny_request("sm_80"));
    EXPECT_TRUE(info.ok) << text;
    EXPECT_FALSE(info.from_cache) << text;
    EXPECT_TRUE(compiler.compile(tiny_request("sm_80")).from_cache) << "not rewritten: " << text;
  }
}

TEST_F(NvrtcCompilerTest, MissingCubinIsAMiss) {
  NvrtcCompiler compiler(dir_);
  CompileInfo first = compiler.compile(tiny_request("sm_80"));
  ASSERT_TRUE(first.ok);
  fs::remove(first.cubin_path);
  CompileInfo second = compiler.compile(tiny_request("sm_80"));
  EXPECT_TRUE(second.ok);
  EXPECT_FALSE(second.from_cache);
  EXPECT_TRUE(fs::exists(second.cubin_path));
}

TEST_F(NvrtcCompilerTest, NoDiskCache) {
  NvrtcCompiler compiler("");
  for (int i = 0; i < 2; ++i) {
    CompileInfo info = compiler.compile(tiny_request("sm_80"));
    EXPECT_TRUE(info.ok) << info.log;
    EXPECT_FALSE(info.from_cache);
    EXPECT_TRUE(info.cubin_path.empty());
    EXPECT_EQ(info.static_smem, 512);
  }
}

TEST_F(NvrtcCompilerTest, BadArchIsAFailureNotAThrowAndNotCached) {
  NvrtcCompiler compiler(dir_);
  CompileInfo virtual_arch = compiler.compile(tiny_request("compute_80"));
  EXPECT_FALSE(virtual_arch.ok);
  EXPECT_NE(virtual_arch.log.find("compute_80"), std::string::npos) << virtual_arch.log;

  CompileInfo unknown = compiler.compile(tiny_request("sm_999"));
  EXPECT_FALSE(unknown.ok);
  EXPECT_NE(unknown.log.find("NVRTC_ERROR_INVALID_OPTION"), std::string::npos) << unknown.log;
  EXPECT_FALSE(compiler.compile(tiny_request("sm_999")).from_cache);
}

TEST_F(NvrtcCompilerTest, UnusableCacheDirThrows) {
  write_file_atomic(dir_, "a file where the cache folder should be");
  EXPECT_THROW(NvrtcCompiler compiler(dir_), Error);
  fs::remove(dir_);
}

TEST(NvrtcCompiler, OptionsInOrder) {
  CompileRequest request = tiny_request("sm_90a");
  request.extra_options = {"-DX=1", "--use_fast_math"};
  std::vector<std::string> options = NvrtcCompiler::nvrtc_options(request);
  ASSERT_GE(options.size(), 8u);
  EXPECT_EQ(options.front(), "--gpu-architecture=sm_90a");
  EXPECT_EQ(options[1], "-I" KTUNE_CUDA_INCLUDE_DIR);
  auto has = [&](const std::string& option) {
    return std::find(options.begin(), options.end(), option) != options.end();
  };
  EXPECT_TRUE(has("-I" KTUNE_CUDA_INCLUDE_DIR "/cccl"));  // CUDA 13 keeps <cuda/...> there
  for (const char* fixed : {"--std=c++17", "-default-device", "--ptxas-options=-v", "-lineinfo"})
    EXPECT_TRUE(has(fixed)) << fixed;
  EXPECT_EQ(options[options.size() - 2], "-DX=1");
  EXPECT_EQ(options.back(), "--use_fast_math");
}

TEST(NvrtcCompiler, VersionMatchesTheToolkit) {
  EXPECT_EQ(NvrtcCompiler::nvrtc_version(),
            std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10));
}

// ---- compile_all ----

// Answers with the request's name expression, after a delay that varies by request so that
// completions arrive out of order.
class FakeCompiler : public Compiler {
 public:
  CompileInfo compile(const CompileRequest& request) override {
    if (request.name_expression == fail_on_) throw Error("fake failure");
    size_t spread = std::hash<std::string>{}(request.name_expression) % 7;
    std::this_thread::sleep_for(std::chrono::microseconds(100 * spread));
    CompileInfo info;
    info.ok = true;
    info.lowered_name = request.name_expression;
    ++calls_;
    return info;
  }
  std::string fail_on_;
  std::atomic<int> calls_{0};
};

std::vector<CompileRequest> named_requests(int n) {
  std::vector<CompileRequest> requests(n);
  for (int i = 0; i < n; ++i) requests[i].name_expression = "k<" + std::to_string(i) + ">";
  return requests;
}

TEST(CompileAll, ResultsInRequestOrderAndProgressCounts) {
  FakeCompiler fake;
  auto requests = named_requests(60);
  std::vector<size_t> dones;
  std::vector<size_t> totals;
  auto results = compile_all(fake, requests, 4, [&](size_t done, size_t total) {
    dones.push_back(done);  // called under compile_all's mutex: no lock needed here
    totals.push_back(total);
  });
  ASSERT_EQ(results.size(), requests.size());
  for (size_t i = 0; i < results.size(); ++i)
    EXPECT_EQ(results[i].lowered_name, requests[i].name_expression);
  ASSERT_EQ(dones.size(), 60u);
  for (size_t i = 0; i < dones.size(); ++i) EXPECT_EQ(dones[i], i + 1);
  for (size_t total : totals) EXPECT_EQ(total, 60u);
  EXPECT_EQ(fake.calls_, 60);
}

TEST(CompileAll, ZeroThreadsAndEmptyInput) {
  FakeCompiler fake;
  auto results = compile_all(fake, named_requests(5), 0);
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[4].lowered_name, "k<4>");
  int progress_calls = 0;
  EXPECT_TRUE(compile_all(fake, {}, 3, [&](size_t, size_t) { ++progress_calls; }).empty());
  EXPECT_EQ(progress_calls, 0);
}

// Proves the pool really runs `threads` compiles at once (and no more): each call waits until
// three are in flight, which can only happen with three workers.
class RendezvousCompiler : public Compiler {
 public:
  CompileInfo compile(const CompileRequest& request) override {
    std::unique_lock lock(mutex_);
    ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight_);
    cv_.notify_all();
    cv_.wait_for(lock, std::chrono::seconds(10), [&] { return max_in_flight_ >= 3; });
    --in_flight_;
    CompileInfo info;
    info.lowered_name = request.name_expression;
    return info;
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  int in_flight_ = 0;
  int max_in_flight_ = 0;
};

TEST(CompileAll, RunsThreadsAtOnce) {
  RendezvousCompiler compiler;
  auto results = compile_all(compiler, named_requests(9), 3);
  EXPECT_EQ(compiler.max_in_flight_, 3);
  EXPECT_EQ(results[8].lowered_name, "k<8>");
}

TEST(CompileAll, FirstExceptionIsRethrown) {
  FakeCompiler fake;
  fake.fail_on_ = "k<5>";
  EXPECT_THROW(compile_all(fake, named_requests(40), 2), Error);
  EXPECT_LT(fake.calls_, 40);  // the pool stopped taking new work
}

TEST(CompileAll, RealCompilerInParallel) {
  fs::path dir =
      fs::temp_directory_path() / ("ktune_test_compile_all_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  NvrtcCompiler compiler(dir);
  std::vector<CompileRequest> requests = {tiny_request("sm_80", 64), tiny_request("sm_80", 128),
                                          tiny_request("sm_90a", 256)};
  auto results = compile_all(compiler, requests, 2);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& info : results) EXPECT_TRUE(info.ok) << info.log;
  EXPECT_EQ(results[0].static_smem, 64 * 4);
  EXPECT_EQ(results[1].static_smem, 128 * 4);
  EXPECT_EQ(results[2].static_smem, 256 * 4);
  EXPECT_EQ(results[2].lowered_name, "_Z10tiny_scaleIfLi256EEvPT_S0_");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// The worker's helper kernels (kernels/util.cu) are compiled at run time on the GPU machine only;
// CI has no GPU, so compile every one of them here for both targets.
TEST_F(NvrtcCompilerTest, EveryHelperKernelCompiles) {
  auto source = find_embedded("kernels/util.cu");
  ASSERT_TRUE(source.has_value());
  NvrtcCompiler compiler(dir_);
  std::vector<std::string> names = {"ktune_checksum", "ktune_spin", "ktune_read_flush", "ktune_hold"};
  for (const char* t : {"__half", "__nv_bfloat16", "__nv_fp8_e4m3", "float"}) {
    names.push_back(std::string("ktune_fill_normal<") + t + ">");
    names.push_back(std::string("ktune_to_fp32<") + t + ">");
    names.push_back(std::string("ktune_compare<") + t + ">");
  }
  // A declared family's buffers: every element type ktune fills, integers compared exactly.
  for (const std::string& e : element_names()) {
    const std::string t(find_element(e)->cpp);
    names.push_back("ktune_fill<" + t + ">");
    if (!find_element(e)->is_float) names.push_back("ktune_compare_exact<" + t + ">");
  }
  for (const char* arch : {"sm_80", "sm_90a"}) {
    for (const std::string& name : names) {
      CompileRequest request = source_request(std::string(*source), arch);
      request.source_name = "kernels/util.cu";
      request.name_expression = name;
      CompileInfo info = compiler.compile(request);
      EXPECT_TRUE(info.ok) << arch << " " << name << ":\n" << info.log;
    }
  }
}

}  // namespace
}  // namespace ktune
