// softmax over long rows with masked stretches (-inf), as attention-style masks make them: every
// long-row kernel of the sweep, run in this process on rows where whole slices of a block (or a
// cluster's block) hold nothing but -inf, gives the host's fp64 softmax with no NaN, and leaves the
// split kernels' counters at zero. The family's own inputs are random normals, which never mask.
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/check.hpp"
#include "cuda/driver.hpp"
#include "cuda/resources.hpp"
#include "families/family.hpp"
#include "family_test_support.hpp"
#include "gpu_test_support.hpp"
#include "gpu/gpu_context.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

constexpr int64_t kRows = 4, kCols = 262144;

// Row r of the input: 2 N(0,1), with row 0 masked over its first 100000 columns, row 1 over its
// last 112144, row 2 over every other 8192-column stretch, row 3 not at all.
bool masked(int64_t r, int64_t c) {
  if (r == 0) return c < 100000;
  if (r == 1) return c >= kCols - 112144;
  if (r == 2) return (c / 8192) % 2 == 1;
  return false;
}

// The input as the dtype stores it (fp32 or fp16) and as doubles of the same values.
struct Input {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
};
Input masked_input(const std::string& dtype) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  Input in;
  const size_t e = dtype == "fp32" ? 4 : 2;
  in.bytes.resize(kRows * kCols * e);
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) {
      const int64_t i = r * kCols + c;
      const float v = masked(r, c) ? -std::numeric_limits<float>::infinity() : normal(rng);
      if (dtype == "fp32") {
        std::memcpy(&in.bytes[4 * i], &v, 4);
        in.values.push_back(v);
      } else {
        const __half h = __float2half_rn(v);
        std::memcpy(&in.bytes[2 * i], &h, 2);
        in.values.push_back(__half2float(h));
      }
    }
  return in;
}

std::vector<double> host_softmax(const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    const double* row = &x[r * kCols];
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < kCols; ++c) m = std::max(m, row[c]);
    for (int64_t c = 0; c < kCols; ++c) s += std::exp(row[c] - m);
    for (int64_t c = 0; c < kCols; ++c) y[r * kCols + c] = std::exp(row[c] - m) / s;
  }
  return y;
}

std::vector<double> read_output(const cuda::DeviceBuffer& y, const std::string& dtype) {
  const size_t e = dtype == "fp32" ? 4 : 2;
  std::vector<uint8_t> bytes(kRows * kCols * e);
  KTUNE_CUDA(cudaMemcpy(bytes.data(), y.get(), bytes.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(kRows * kCols);
  for (size_t i = 0; i < out.size(); ++i) {
    if (dtype == "fp32") {
      float v;
      std::memcpy(&v, &bytes[4 * i], 4);
      out[i] = v;
    } else {
      __half h;
      std::memcpy(&h, &bytes[2 * i], 2);
      out[i] = __half2float(h);
    }
  }
  return out;
}

TEST(SoftmaxGpu, LongRowsWithMaskedStretchesMatchTheHostInEveryLongRowKernel) {
  KTUNE_REQUIRE_GPU();
  GpuContext gpu(test::scratch_dir("softmax-masked"));
  NvrtcCompiler compiler(test::scratch_dir("softmax-masked-cubins"));
  const KernelFamily& family = find_family("softmax");
  const cuda::DriverApi& api = cuda::driver();
  const ArchFacts arch = arch_facts(gpu.device());
  for (const std::string dtype : {"fp32", "fp16"}) {
    const Problem p{"softmax", {{"rows", kRows}, {"cols", kCols}}, dtype, {}};
    SCOPED_TRACE(describe(p));
    const Input in = masked_input(dtype);
    const std::vector<double> want = host_softmax(in.values);
    const Tolerance tol = family.default_tolerance(dtype);
    cuda::DeviceBuffer x(in.bytes.size()), y(in.bytes.size());
    KTUNE_CUDA(cudaMemcpy(x.get(), in.bytes.data(), in.bytes.size(), cudaMemcpyHostToDevice));
    // The split kernels' workspace, sized as their configs allow for this problem.
    const int64_t counters_n = kRows + 2;
    cuda::DeviceBuffer partials(kRows * 64 * 2 * sizeof(float)), counters(counters_n * sizeof(unsigned));
    KTUNE_CUDA(cudaMemset(counters.get(), 0, counters_n * sizeof(unsigned)));
    std::set<std::string> ran;
    for (std::string_view path : family.default_configs()) {
      const SweepConfig config = parse_family_config(family, *find_embedded(path), std::string(path));
      if (config.min_arch > arch.arch) continue;
      const KernelSource source = resolve_kernel_source(config);
      const std::vector<Candidate> valid = valid_candidates(config, family, p, arch);
      for (size_t idx : spread_picks(valid)) {
        const Candidate& c = valid[idx];
        SCOPED_TRACE(c.kernel_name);
        CompileInfo info =
            compiler.compile({source.name, source.text, source.headers, c.kernel_name, gpu.device().arch(), {}});
        ASSERT_TRUE(info.ok) << info.log;
        cuda::Module module(read_file(info.cubin_path));
        CUfunction f = module.function(info.lowered_name);
        KTUNE_CU(api.func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(c.launch.shared_bytes)));
        (void)api.func_set_attribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        KTUNE_CUDA(cudaMemset(y.get(), 0xff, in.bytes.size()));  // NaN until written
        const void* xp = x.get();
        void* yp = y.get();
        void* pp = partials.get();
        void* cp = counters.get();
        long long rows = kRows;
        int cols = static_cast<int>(kCols);
        void* args[] = {&xp, &yp, &rows, &cols, &pp, &cp};
        gpu.launch(f, c.launch, args);
        KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
        const std::vector<double> got = read_output(y, dtype);
        int64_t bad = 0, first_bad = -1;
        for (size_t i = 0; i < got.size(); ++i)
          if (!(std::abs(got[i] - want[i]) <= tol.atol + tol.rtol * std::abs(want[i]))) {
            if (first_bad < 0) first_bad = static_cast<int64_t>(i);
            ++bad;
          }
        EXPECT_EQ(bad, 0) << "first at row " << first_bad / kCols << ", column " << first_bad % kCols << ": "
                          << (first_bad < 0 ? 0.0 : got[first_bad]) << " vs "
                          << (first_bad < 0 ? 0.0 : want[first_bad]);
        std::vector<unsigned> left(counters_n);
        KTUNE_CUDA(cudaMemcpy(left.data(), counters.get(), counters_n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int64_t i = 0; i < counters_n; ++i) EXPECT_EQ(left[i], 0u) << "counter " << i << " left non-zero";
        ran.insert(config.name);
      }
    }
    EXPECT_TRUE(ran.count("softmax_looped"));
    EXPECT_TRUE(ran.count("softmax_split"));
    if (arch.arch >= 90) EXPECT_TRUE(ran.count("softmax_split_staged"));
  }
}

}  // namespace
}  // namespace ktune
