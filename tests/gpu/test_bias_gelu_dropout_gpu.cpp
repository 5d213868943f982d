// bias_gelu_dropout on the GPU. Through the worker, like the other memory-bound families: the
// spread picks of the sweep against the fp64 reference on ragged shapes in every dtype and every
// p, and planted wrong kernels rejected. In this process, where outputs can be read back: the
// mask of every kind of candidate (16-byte vectors with the bias as aligned vectors or gathered
// over odd rows, each narrower width, chunks that wrap rows, grid-stride and not, the tail)
// equals, bit for bit, the host's rule (families/dropout_rng.hpp) and the reference's; the keep
// rate over 2^24 elements is 1 - threshold16 / 2^16 (within 2^-16 of 1 - p); cuRAND's Philox
// gives Random123's known answers on the device too, and normal_cdf.cuh (GELU's Phi) keeps its
// host-tested accuracy with the device's exp2.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/resources.hpp"
#include "families/dropout_rng.hpp"
#include "families/family.hpp"
#include "family_test_support.hpp"
#include "gpu_test_support.hpp"
#include "gpu/gpu_context.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

const char* kFamily = "bias_gelu_dropout";

Problem bgd(int64_t rows, int64_t cols, const std::string& dtype, const std::string& p) {
  return {kFamily, {{"rows", rows}, {"cols", cols}}, dtype, {{"p", p}}};
}

// The family's sweep config, parsed with its names.
SweepConfig bgd_config() {
  const KernelFamily& family = find_family(kFamily);
  const std::string path = "configs/bias_gelu_dropout.json";
  return parse_family_config(family, *find_embedded(path), path);
}

// The family's config with the vector widths it leaves out (VEC_BYTES 8, 4 and 2, which the
// kernel takes with either bias mode): so the masks of those code paths are checked too.
SweepConfig bgd_config_every_width() {
  SweepConfig config = bgd_config();
  for (auto& [name, values] : config.parameters)
    if (name == "VEC_BYTES") values = {16, 8, 4, 2};
  return config;
}

// Whether a row of `cols` elements of `dtype` is whole 16-byte vectors (else the default config
// gathers the bias).
bool rows_of_whole_vectors(int64_t cols, const std::string& dtype) {
  return cols * (dtype == "fp32" ? 4 : 2) % 16 == 0;
}

TEST(BiasGeluDropoutGpu, MatchesItsReferenceOnRaggedShapesEveryDtypeEveryP) {
  KTUNE_REQUIRE_GPU();
  // Row lengths of every alignment: odd (16-byte vectors with the bias gathered, chunks that span
  // rows, a tail), 2 mod 4, 4 mod 8 and 0 mod 8 elements; fewer columns than a chunk; long rows
  // and many short ones. Rows of 11 put a chunk at every column and most of them near a row's end,
  // where the gathered bias takes its one-element-at-a-time path.
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1},      {3, 7},     {5, 6},    {7, 12},  {33, 1000},
                                                           {257, 3001}, {2, 100003}, {4097, 3}, {129, 11}};
  const std::vector<std::string> ps = {"0.1", "0.5", "0.2"};
  std::vector<Problem> problems;
  for (size_t s = 0; s < shapes.size(); ++s)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back(bgd(shapes[s].first, shapes[s].second, dtype, ps[s % ps.size()]));
  const SweepCheck c = check_default_sweeps(kFamily, problems);
  EXPECT_GE(c.runs, static_cast<int>(problems.size()) * 3);
  // Odd row lengths took 16-byte vectors with the bias gathered, in every dtype.
  std::set<std::string> gathered_odd;
  for (const SweepCheck::Ran& r : c.ran) {
    const Problem& p = problems[r.problem];
    if (p.dims.at("cols") % 2 == 1 && r.params.at("VEC_BYTES") == 16 && r.params.at("GATHER_BIAS") == 1)
      gathered_odd.insert(p.dtype);
  }
  EXPECT_EQ(gathered_odd, (std::set<std::string>{"fp16", "bf16", "fp32"}));
}

// ---- planted wrong kernels ----------------------------------------------------------------------

// fp32, one element a thread, the rule written out; `group_expr`, `counter_expr`, `half_expr`,
// `keep_expr`, `gelu_expr` and `scale_expr` are where each planted kernel goes wrong.
struct Planted {
  std::string group = "(unsigned long long)i / 8";
  std::string counter = "make_uint4((unsigned)g, (unsigned)(g >> 32), 0u, 0u)";
  std::string half = "(unsigned)(i % 8)";  // which 16-bit half of the group: word h / 2, high half if h is odd
  std::string keep = "((w >> (16 * (h % 2))) & 0xffffu) >= __float2uint_rz(p * 65536.0f)";
  std::string gelu = "z * 0.5f * (1.0f + erff(z * 0.70710678f))";
  std::string scale = "1.0f / (1.0f - p)";
};
std::string planted_source(const std::string& name, const Planted& k) {
  return fmt::format(R"(
    #include <curand_philox4x32_x.h>
    extern "C" __global__ void {0}(const float* x, const float* bias, float* y, long long rows, int cols, float p,
                                    unsigned long long seed) {{
      long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (i >= rows * cols) return;
      unsigned long long g = {1};
      uint4 r = curand_Philox4x32_10({2}, make_uint2((unsigned)seed, (unsigned)(seed >> 32)));
      unsigned h = {3};
      unsigned k = h / 2;
      unsigned w = k == 0 ? r.x : k == 1 ? r.y : k == 2 ? r.z : r.w;
      float z = x[i] + bias[i % cols];
      float gelu = {5};
      y[i] = {4} ? gelu * ({6}) : 0.0f;
    }})",
                     name, k.group, k.counter, k.half, k.keep, k.gelu, k.scale);
}


Launch planted_launch(const Problem& p) {
  Launch l;
  l.block[0] = 256;
  l.grid[0] = (p.dims.at("rows") * p.dims.at("cols") + 255) / 256;
  return l;
}

// Rejected as incorrect (or as having written where it must not), never passed.
void expect_rejected(const std::string& why, const std::string& source, const Problem& p) {
  SCOPED_TRACE(why);
  expect_planted_rejected(p, source, "planted", planted_launch(p));
}

TEST(BiasGeluDropoutGpu, PlantedWrongKernelsAreRejected) {
  KTUNE_REQUIRE_GPU();
  const Problem p = bgd(1000, 3001, "fp32", "0.1");
  // The control: the rule written out right passes, so the rejections below are for their bugs.
  const PlantedRun control = run_planted(p, planted_source("planted", Planted{}), "planted", planted_launch(p));
  EXPECT_EQ(control.disposition, Disposition::passed) << control.reason;
  Planted k;
  k.half = "(unsigned)((i + 1) % 8)";
  expect_rejected("the next element's Philox half", planted_source("planted", k), p);
  k = Planted{};
  k.half = "(unsigned)((i % 8) ^ 1)";
  expect_rejected("a word's halves the other way round", planted_source("planted", k), p);
  k = Planted{};
  k.counter = "make_uint4((unsigned)(g >> 32), (unsigned)g, 0u, 0u)";
  expect_rejected("the group index in the counter's high word", planted_source("planted", k), p);
  k = Planted{};
  k.group = "(unsigned long long)i / 4";
  k.half = "(unsigned)(i % 4) * 2";
  k.keep = "w >= __float2uint_rz(p * 4294967296.0f)";
  expect_rejected("the earlier rule: a 32-bit word an element, four a call", planted_source("planted", k), p);
  k = Planted{};
  k.gelu = "0.5f * z * (1.0f + tanhf(0.7978845608f * (z + 0.044715f * z * z * z)))";
  expect_rejected("tanh-approximate GELU (fp32 resolves the difference, up to ~5e-4)",
                          planted_source("planted", k), p);
  k = Planted{};
  k.scale = "1.0f";
  expect_rejected("kept elements not scaled by 1/(1-p)", planted_source("planted", k), p);
}

// ---- in this process: masks read back ------------------------------------------------------------

// A candidate of the family's sweep, compiled and loaded here.
struct Loaded {
  std::string kernel_name;
  Bindings params;
  Launch launch;
  std::unique_ptr<cuda::Module> module;
  CUfunction f = nullptr;
};

// The spread picks of `config` for `p` (every value of every tunable that is valid for it),
// compiled for this device.
std::vector<Loaded> load_spread(GpuContext& gpu, NvrtcCompiler& compiler, const SweepConfig& config,
                                const Problem& p) {
  KernelSource source = resolve_kernel_source(config);
  const std::vector<Candidate> valid = valid_candidates(config, find_family(kFamily), p, arch_facts(gpu.device()));
  std::vector<Loaded> out;
  if (valid.empty()) {
    ADD_FAILURE() << "no valid candidate for " << describe(p);
    return out;
  }
  for (size_t idx : spread_picks(valid)) {
    CompileInfo info = compiler.compile(
        {source.name, source.text, source.headers, valid[idx].kernel_name, gpu.device().arch(), {}});
    EXPECT_TRUE(info.ok) << valid[idx].kernel_name << "\n" << info.log;
    if (!info.ok) continue;
    Loaded l;
    l.kernel_name = valid[idx].kernel_name;
    l.params = valid[idx].params;
    l.launch = valid[idx].launch;
    l.module = std::make_unique<cuda::Module>(read_file(info.cubin_path));
    l.f = l.module->function(info.lowered_name);
    out.push_back(std::move(l));
  }
  return out;
}

size_t elem_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

// n random values in [0.5, 2) as raw bits of the dtype: positive, so z = x + bias is in [1, 4),
// GELU(z) >= 0.84 and an output is 0 exactly where the mask drops it.
std::vector<uint8_t> positive_values(const std::string& dtype, int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n * elem_bytes(dtype));
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t r = rng(), one_or_half = r & 1;  // exponent of 2^0 or 2^-1
    if (dtype == "fp32") {
      const uint32_t bits = ((126 + one_or_half) << 23) | (r >> 9);
      std::memcpy(&out[4 * i], &bits, 4);
    } else {
      const uint16_t bits = dtype == "fp16" ? uint16_t(((14 + one_or_half) << 10) | ((r >> 1) & 0x3ff))
                                            : uint16_t(((126 + one_or_half) << 7) | ((r >> 1) & 0x7f));
      std::memcpy(&out[2 * i], &bits, 2);
    }
  }
  return out;
}

cuda::DeviceBuffer upload(const std::vector<uint8_t>& bytes) {
  cuda::DeviceBuffer b(bytes.size());
  KTUNE_CUDA(cudaMemcpy(b.get(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  return b;
}

// Which outputs are exactly zero (+0 or -0), from n elements of `dtype` (or fp32) at `p`.
std::vector<uint8_t> zero_pattern(const void* device, const std::string& dtype, int64_t n, int* not_finite) {
  const size_t e = elem_bytes(dtype);
  std::vector<uint8_t> bytes(n * e), zeros(n);
  KTUNE_CUDA(cudaMemcpy(bytes.data(), device, bytes.size(), cudaMemcpyDeviceToHost));
  *not_finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (e == 4) {
      uint32_t b;
      std::memcpy(&b, &bytes[4 * i], 4);
      zeros[i] = (b & 0x7fffffffu) == 0;
      *not_finite += (b & 0x7f800000u) == 0x7f800000u;
    } else {
      uint16_t b;
      std::memcpy(&b, &bytes[2 * i], 2);
      zeros[i] = (b & 0x7fff) == 0;
      const uint16_t exp_mask = dtype == "fp16" ? 0x7c00 : 0x7f80;
      *not_finite += (b & exp_mask) == exp_mask;
    }
  }
  return zeros;
}

std::string first_difference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want) {
  int64_t count = 0, first = -1;
  for (size_t i = 0; i < want.size(); ++i)
    if (got[i] != want[i]) {
      if (first < 0) first = static_cast<int64_t>(i);
      ++count;
    }
  if (count == 0) return "";
  return fmt::format("{} of {} elements differ, the first at flat index {} ({} there, {} wanted)", count, want.size(),
                     first, got[first] ? "dropped" : "kept", want[first] ? "dropped" : "kept");
}

// Runs `k` on (x, bias) into a poisoned y; returns its zero pattern.
std::vector<uint8_t> run_candidate_here(GpuContext& gpu, const Loaded& k, const cuda::DeviceBuffer& x,
                                        const cuda::DeviceBuffer& bias, const cuda::DeviceBuffer& y,
                                        const Problem& p, float drop, unsigned long long seed, int* not_finite) {
  KTUNE_CUDA(cudaMemsetAsync(y.get(), 0xff, y.bytes(), gpu.stream()));  // NaN in every dtype
  const void* xp = x.get();
  const void* bp = bias.get();
  void* yp = y.get();
  long long rows = p.dims.at("rows");
  int cols = static_cast<int>(p.dims.at("cols"));
  void* args[] = {&xp, &bp, &yp, &rows, &cols, &drop, &seed};
  gpu.launch(k.f, k.launch, args);
  KTUNE_CUDA(cudaGetLastError());
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
  return zero_pattern(y.get(), p.dtype, rows * cols, not_finite);
}

// The reference kernel's zero pattern for the same inputs.
std::vector<uint8_t> reference_pattern(GpuContext& gpu, const cuda::DeviceBuffer& x, const cuda::DeviceBuffer& bias,
                                       const Problem& p, float drop, unsigned long long seed) {
  const int64_t n = p.dims.at("rows") * p.dims.at("cols");
  const char* element = p.dtype == "fp16" ? "__half" : p.dtype == "bf16" ? "__nv_bfloat16" : "float";
  CUfunction f = gpu.kernel("kernels/reference.cu", fmt::format("ktune_ref_bias_gelu_dropout<{}>", element));
  cuda::DeviceBuffer ref(n * sizeof(float));
  const void* xp = x.get();
  const void* bp = bias.get();
  void* rp = ref.get();
  long long rows = p.dims.at("rows"), cols = p.dims.at("cols");
  void* args[] = {&xp, &bp, &rp, &rows, &cols, &drop, &seed};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = std::min<int64_t>((n + 255) / 256, 65535);
  gpu.launch(f, l, args);
  KTUNE_CUDA(cudaGetLastError());
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
  int not_finite = 0;
  std::vector<uint8_t> zeros = zero_pattern(ref.get(), "fp32", n, &not_finite);
  EXPECT_EQ(not_finite, 0);
  return zeros;
}

// The mask depends on (seed, flat index) alone: shapes of the same element count whose row lengths
// give every kind of candidate (16-byte vectors with aligned bias and with gathered bias, odd
// rows among them, and through bgd_config_every_width the narrower widths in both bias modes;
// chunks that wrap rows, cols < 8, grid-stride and not, tails of 7, 6 and 4 elements), each with
// the spread of its candidates, all drop exactly the elements the host's rule drops, as does the
// reference. A seed with both 32-bit halves non-zero, so the key's high word counts.
TEST(BiasGeluDropoutGpu, MaskIsTheSameForEveryConfigurationShapeAndTheReference) {
  KTUNE_REQUIRE_GPU();
  GpuContext gpu(test::scratch_dir("bgd-mask"));
  NvrtcCompiler compiler(test::scratch_dir("bgd-mask-cubins"));
  const unsigned long long seed = 0x9e3779b97f4a7c15ull;
  const SweepConfig configs[] = {bgd_config(), bgd_config_every_width()};
  struct Set {
    int64_t n;
    std::vector<int64_t> cols;  // each divides n
  };
  // 2042040 = 8 * 3 * 5 * 7 * 11 * 13 * 17: row lengths odd, 2 mod 4, 4 mod 8, 0 mod 8, and tiny.
  // 255255 (odd): 16-byte vectors over odd rows with a tail of n % 8 = 7 elements (and scalar
  // chunks); rows of 11 and 10 leave gather_bias's run of ten columns only at the row's start.
  // 510510 (2 mod 8): a tail of 6 (and 2-element vectors); 1021020 (4 mod 8): a tail of 4 (and
  // 4-element vectors).
  const std::vector<Set> sets = {{2042040, {3003, 2310, 4420, 8008, 3, 1, 2042040}},
                                 {255255, {1, 3, 11, 1001, 255255}},
                                 {510510, {2310, 6, 10}},
                                 {1021020, {4420, 12}}};
  for (float drop : {0.1f, 0.5f}) {
    const uint32_t threshold16 = dropout::threshold16(drop);
    for (const Set& set : sets) {
      std::vector<uint8_t> want(set.n);
      for (int64_t i = 0; i < set.n; ++i) want[i] = !dropout::keeps(seed, i, threshold16);
      for (std::string dtype : {"fp16", "bf16", "fp32"}) {
        std::vector<uint8_t> first;
        std::string first_name;
        cuda::DeviceBuffer x = upload(positive_values(dtype, set.n, 1));
        cuda::DeviceBuffer y(set.n * elem_bytes(dtype));
        std::set<int64_t> widths;
        for (int64_t cols : set.cols) {
          const Problem p = bgd(set.n / cols, cols, dtype, drop == 0.1f ? "0.1" : "0.5");
          SCOPED_TRACE(describe(p));
          cuda::DeviceBuffer bias = upload(positive_values(dtype, cols, 2));
          EXPECT_EQ(first_difference(reference_pattern(gpu, x, bias, p, drop, seed), want), "") << "reference";
          bool gathered_16 = false;
          for (const SweepConfig& config : configs) {
            std::vector<Loaded> loaded = load_spread(gpu, compiler, config, p);
            EXPECT_GE(loaded.size(), 3u);
            for (const Loaded& k : loaded) {
              widths.insert(k.params.at("VEC_BYTES"));
              gathered_16 |= k.params.at("VEC_BYTES") == 16 && k.params.at("GATHER_BIAS") == 1;
              int not_finite = 0;
              std::vector<uint8_t> got = run_candidate_here(gpu, k, x, bias, y, p, drop, seed, &not_finite);
              EXPECT_EQ(not_finite, 0) << k.kernel_name << ": outputs left unwritten or not finite";
              EXPECT_EQ(first_difference(got, want), "") << k.kernel_name << " against the host's rule";
              if (first.empty()) {
                first = got;
                first_name = k.kernel_name;
              } else {
                EXPECT_TRUE(got == first) << k.kernel_name << " against " << first_name;
              }
            }
          }
          EXPECT_EQ(gathered_16, !rows_of_whole_vectors(cols, dtype)) << "16-byte vectors with the bias gathered";
        }
        EXPECT_EQ(widths, (dtype == "fp32" ? std::set<int64_t>{4, 8, 16} : std::set<int64_t>{2, 4, 8, 16}));
      }
    }
  }
}

// Over 2^24 elements the kept fraction is 1 - q within 5 binomial standard deviations (1.2e-4 at
// p = 0.5), q = threshold16 / 2^16 being the rule's drop probability (within 2^-16 of p, so the
// test could not tell the two apart at this n: it checks the generator, not the rounding), for the
// candidate and for the reference; and another seed drops other elements.
TEST(BiasGeluDropoutGpu, KeepRateIsOneMinusPAndTheSeedMatters) {
  KTUNE_REQUIRE_GPU();
  GpuContext gpu(test::scratch_dir("bgd-rate"));
  NvrtcCompiler compiler(test::scratch_dir("bgd-rate-cubins"));
  const int64_t rows = 4096, cols = 4096, n = rows * cols;
  cuda::DeviceBuffer x = upload(positive_values("fp16", n, 3));
  cuda::DeviceBuffer bias = upload(positive_values("fp16", cols, 4));
  cuda::DeviceBuffer y(n * 2);
  for (const char* p_text : {"0.1", "0.5"}) {
    const Problem p = bgd(rows, cols, "fp16", p_text);
    const float drop = dropout::parse_p(p_text);
    const double q = dropout::drop_probability(drop);
    std::vector<Loaded> loaded = load_spread(gpu, compiler, bgd_config(), p);
    ASSERT_FALSE(loaded.empty());
    const Loaded& k = loaded.back();
    const double sigma = std::sqrt(q * (1.0 - q) / n);
    int not_finite = 0;
    std::vector<uint8_t> a = run_candidate_here(gpu, k, x, bias, y, p, drop, 42, &not_finite);
    EXPECT_EQ(not_finite, 0);
    auto kept_fraction = [&](const std::vector<uint8_t>& zeros) {
      int64_t dropped = 0;
      for (uint8_t z : zeros) dropped += z;
      return 1.0 - static_cast<double>(dropped) / n;
    };
    EXPECT_LT(std::abs(kept_fraction(a) - (1.0 - q)), 5 * sigma) << p_text << " " << k.kernel_name;
    EXPECT_LT(std::abs(kept_fraction(reference_pattern(gpu, x, bias, p, drop, 42)) - (1.0 - q)), 5 * sigma);
    // Seeds 42, 43 and 42 + 2^32 give independent masks: they disagree on a fraction 2q(1-q).
    for (unsigned long long other : {43ull, 42ull + (1ull << 32)}) {
      std::vector<uint8_t> b = run_candidate_here(gpu, k, x, bias, y, p, drop, other, &not_finite);
      int64_t differ = 0;
      for (int64_t i = 0; i < n; ++i) differ += a[i] != b[i];
      const double d = 2 * q * (1 - q);
      EXPECT_LT(std::abs(static_cast<double>(differ) / n - d), 5 * std::sqrt(d * (1 - d) / n))
          << "seed " << other;
    }
  }
}

// kernels/normal_cdf.cuh on the device, where the SFU's ex2.approx replaces the host's exp2f: on
// the grid of tests/host/test_normal_cdf.cpp (every 1e-4 over [-6, 6]), Phi within the host's
// bounds for each band of z plus the 2 ulp of h that ex2.approx may add (for z >= 0, h <= 0.5 and
// Phi >= 0.5, so that is at most 1 ulp of Phi), and exactly 1 and 0 past the tail end.
TEST(BiasGeluDropoutGpu, NormalCdfOnTheDeviceKeepsItsHostBoundsPlusTheSfuError) {
  KTUNE_REQUIRE_GPU();
  GpuContext gpu(test::scratch_dir("bgd-ncdf"));
  NvrtcCompiler compiler(test::scratch_dir("bgd-ncdf-cubins"));
  const std::string source = R"(
    #include "normal_cdf.cuh"
    extern "C" __global__ void phi(const float* z, float* out, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) out[i] = normal_cdf::normal_cdf(z[i]);
    })";
  CompileInfo info = compiler.compile(
      {"normal_cdf_test.cu", source, resolve_kernel_source(bgd_config()).headers, "phi", gpu.device().arch(), {}});
  ASSERT_TRUE(info.ok) << info.log;
  cuda::Module module(read_file(info.cubin_path));
  CUfunction f = module.function(info.lowered_name);
  std::vector<float> z;
  for (int i = -60000; i <= 60000; ++i) z.push_back(static_cast<float>(i) * 1e-4f);
  int n = static_cast<int>(z.size());
  cuda::DeviceBuffer zd(n * sizeof(float)), out(n * sizeof(float));
  KTUNE_CUDA(cudaMemcpy(zd.get(), z.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const void* zp = zd.get();
  void* op = out.get();
  void* args[] = {&zp, &op, &n};
  Launch l;
  l.block[0] = 256;
  l.grid[0] = (n + 255) / 256;
  gpu.launch(f, l, args);
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
  std::vector<float> phi(n);
  KTUNE_CUDA(cudaMemcpy(phi.data(), out.get(), n * sizeof(float), cudaMemcpyDeviceToHost));
  auto ulp32 = [](double x) {
    int e = 0;
    std::frexp(std::fabs(x), &e);
    return std::ldexp(1.0, std::max(e - 1, -126) - 23);
  };
  struct Band {
    double lo, hi, bound, worst = 0;  // lo < z <= hi below 0, lo <= z < hi from 0
  };
  std::vector<Band> bands = {{-5.5, -4, 37 + 2}, {-4, -3, 16 + 2}, {-3, -2, 13 + 2},
                             {-2, -1, 8 + 2},    {-1, 0, 3 + 2},   {0, 5.5, 1.5 + 1}};
  int tail_wrong = 0;
  for (int i = 0; i < n; ++i) {
    const float zi = z[i];
    if (std::fabs(zi) >= 5.5f) {
      tail_wrong += phi[i] != (zi < 0 ? 0.0f : 1.0f);
      continue;
    }
    const double u = zi / std::sqrt(2.0);
    const double want = zi >= 0 ? 0.5 * (1.0 + std::erf(u)) : 0.5 * std::erfc(-u);
    const double err = std::fabs(phi[i] - want) / ulp32(want);
    for (Band& b : bands)
      if (zi < 0 ? (b.lo < zi && zi <= b.hi) : (b.lo <= zi && zi < b.hi)) b.worst = std::max(b.worst, err);
  }
  EXPECT_EQ(tail_wrong, 0) << "values past |z| = 5.5 that are not exactly 0 or 1";
  for (const Band& b : bands)
    EXPECT_LE(b.worst, b.bound) << "z in [" << b.lo << ", " << b.hi << "]: Phi off by " << b.worst << " ulp";
}

// cuRAND's Philox compiled by NVRTC for this device gives Random123's known answers (the host
// tests check the same header compiled for the host).
TEST(BiasGeluDropoutGpu, DevicePhiloxMatchesRandom123KnownAnswers) {
  KTUNE_REQUIRE_GPU();
  GpuContext gpu(test::scratch_dir("bgd-kat"));
  NvrtcCompiler compiler(test::scratch_dir("bgd-kat-cubins"));
  const std::string source = R"(
    #include <curand_philox4x32_x.h>
    extern "C" __global__ void philox_kat(uint4* out) {
      out[0] = curand_Philox4x32_10(make_uint4(0u, 0u, 0u, 0u), make_uint2(0u, 0u));
      out[1] = curand_Philox4x32_10(make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu),
                                    make_uint2(0xffffffffu, 0xffffffffu));
      out[2] = curand_Philox4x32_10(make_uint4(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u),
                                    make_uint2(0xa4093822u, 0x299f31d0u));
    })";
  CompileInfo info = compiler.compile({"philox_kat.cu", source, {}, "philox_kat", gpu.device().arch(), {}});
  ASSERT_TRUE(info.ok) << info.log;
  cuda::Module module(read_file(info.cubin_path));
  CUfunction f = module.function(info.lowered_name);
  cuda::DeviceBuffer out(3 * 16);
  void* o = out.get();
  void* args[] = {&o};
  Launch l;
  gpu.launch(f, l, args);
  KTUNE_CUDA(cudaStreamSynchronize(gpu.stream()));
  uint32_t got[12];
  KTUNE_CUDA(cudaMemcpy(got, out.get(), sizeof(got), cudaMemcpyDeviceToHost));
  const uint32_t want[12] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8, 0x408f276d, 0x41c83b0e,
                             0xa20bc7c6, 0x6d5451fd, 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[i], want[i]) << "word " << i;
}

}  // namespace
}  // namespace ktune
