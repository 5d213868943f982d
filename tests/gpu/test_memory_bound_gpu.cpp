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

struct Checked {
  int runs = 0;
  std::set<std::string> configs;
  int arch = 0;  // the device's, as configs' min_arch counts it
};

// Runs the spread picks of every default config of the problem's family on `problems`.
Checked check_default_sweeps(const std::string& family_name, const std::vector<Problem>& problems) {
  auto dir = test::scratch_dir(family_name);
  const KernelFamily& family = find_family(family_name);
  Session session(session_options(dir));
  const DeviceInfo& device = session.device();
  NvrtcCompiler compiler(dir);
  Checked out;
  out.arch = arch_facts(device).arch;
  for (size_t pi = 0; pi < problems.size(); ++pi) {
    const Problem& p = problems[pi];
    std::vector<CandidateRecord> recs;
    std::vector<CompileRequest> requests;
    for (std::string_view path : family.default_configs()) {
      SweepConfig config = parse_sweep_config(*find_embedded(path), std::string(path), family.context_names(),
                                              family.placeholder_names());
      if (config.min_arch > arch_facts(device).arch) continue;
      KernelSource source = resolve_kernel_source(config);
      std::vector<Candidate> valid;
      for (Candidate& c : enumerate(config, family.context(p, arch_facts(device)), family.placeholders(p)))
        if (c.valid) valid.push_back(std::move(c));
      if (valid.empty()) continue;
      for (size_t idx : spread_picks(valid)) {
        CandidateRecord rec;
        rec.config_name = config.name;
        rec.params = valid[idx].params;
        rec.kernel_name = valid[idx].kernel_name;
        rec.launch = valid[idx].launch;
        recs.push_back(rec);
        requests.push_back({source.name, source.text, source.headers, rec.kernel_name, device.arch(), {}});
      }
    }
    EXPECT_FALSE(recs.empty()) << "no valid candidate for " << describe(p);
    std::vector<CompileInfo> infos = compile_all(compiler, requests, 0);
    session.set_problem(p, family.default_tolerance(p.dtype), 500 + pi);
    for (size_t i = 0; i < recs.size(); ++i) {
      // A spill only rules a candidate out of tuning; it must still be right.
      EXPECT_TRUE(infos[i].ok) << recs[i].kernel_name << "\n" << infos[i].log;
      if (!infos[i].ok) continue;
      recs[i].compile = infos[i];
      session.run_candidate(recs[i], StoppingRule{}, 0, 0, /*verify_only=*/true);
      EXPECT_EQ(recs[i].disposition, Disposition::passed)
          << describe(p) << " " << recs[i].kernel_name << ": " << recs[i].reason;
      ++out.runs;
      out.configs.insert(recs[i].config_name);
    }
    // Every baseline runs and, where it computes the problem, matches the reference.
    StoppingRule rule;
    rule.min_samples = 3;
    rule.min_time_ms = 1;
    rule.max_time_ms = 50;
    for (const CandidateRecord& b : session.time_baselines(rule, 1)) {
      EXPECT_EQ(b.disposition, Disposition::passed) << describe(p) << " " << b.kernel_name << ": " << b.reason;
      EXPECT_TRUE(b.time && b.time->median > 0) << b.kernel_name;
    }
  }
  EXPECT_EQ(session.worker_restarts(), 0);
  return out;
}

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
                                                           {5, 4096},  {7, 32769},  {2, 100002}, {3, 131080},
                                                           {3, 262144}, {300, 8200}};
  for (const auto& [rows, cols] : shapes)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back({"softmax", {{"rows", rows}, {"cols", cols}}, dtype, {}});
  Checked c = check_default_sweeps("softmax", problems);
  EXPECT_TRUE(c.configs.count("softmax"));
  EXPECT_TRUE(c.configs.count("softmax_looped"));
  // Rows from 8192 columns also take the split kernel (any arch); at 300 x 8200 its slices come
  // in more than one wave of blocks, so rows wait on slices that started in an earlier wave.
  EXPECT_TRUE(c.configs.count("softmax_split"));
  // Rows of 8200 (16-byte multiples in every dtype) take the staged kernel on sm_90, in 300
  // clusters: more than one wave of them.
  if (c.arch >= 90) EXPECT_TRUE(c.configs.count("softmax_staged"));
  if (c.arch >= 90) EXPECT_TRUE(c.configs.count("softmax_split_staged"));
}

// Both norms on every row-length kind (one-vector rows, odd lengths that take 2-byte vectors, the
// register kernel's longest rows, and the looped kernel's) in every dtype, both eps values.
void check_norm(const std::string& family) {
  std::vector<Problem> problems;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 8},     {3, 7},    {257, 64},   {33, 1023},
                                                           {65, 4096}, {7, 16384}, {5, 32769}, {3, 100002}};
  for (const auto& [rows, cols] : shapes)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back({family, {{"rows", rows}, {"cols", cols}}, dtype, {{"eps", "1e-5"}}});
  problems.push_back({family, {{"rows", 17}, {"cols", 2048}}, "fp16", {{"eps", "1e-6"}}});
  Checked c = check_default_sweeps(family, problems);
  EXPECT_TRUE(c.configs.count(family));
  EXPECT_TRUE(c.configs.count(family + "_looped"));
}

TEST(MemoryBoundGpu, LayerNormMatchesItsReferenceOnEveryRowLengthKindEveryDtype) {
  KTUNE_REQUIRE_GPU();
  check_norm("layernorm");
}

TEST(MemoryBoundGpu, RmsNormMatchesItsReferenceOnEveryRowLengthKindEveryDtype) {
  KTUNE_REQUIRE_GPU();
  check_norm("rmsnorm");
}

TEST(MemoryBoundGpu, LayerNormBackwardMatchesItsReferenceOnRaggedShapesEveryDtype) {
  KTUNE_REQUIRE_GPU();
  std::vector<Problem> problems;
  // One-vector rows, odd lengths, the longest rows, and more rows than the grid has blocks (the
  // weight gradients' partials from every block, added up by the last to arrive).
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 8},     {3, 7},     {257, 64},  {33, 1023},
                                                           {65, 4096}, {7, 16384}, {5, 16382}, {4099, 1030}};
  for (const auto& [rows, cols] : shapes)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back({"layernorm_backward", {{"rows", rows}, {"cols", cols}}, dtype, {}});
  Checked c = check_default_sweeps("layernorm_backward", problems);
  EXPECT_TRUE(c.configs.count("layernorm_backward"));
}

// A kernel with a bug planted, compiled from `source` and run as a candidate: rejected as
// incorrect (or as having written where it must not), never passed.
void expect_rejected(const Problem& p, const std::string& source, const std::string& name, const Launch& launch) {
  auto dir = test::scratch_dir("planted-" + p.family);
  const KernelFamily& family = find_family(p.family);
  Session session(session_options(dir));
  NvrtcCompiler compiler(dir);
  CandidateRecord rec;
  rec.config_name = "planted";
  rec.kernel_name = name;
  rec.launch = launch;
  rec.compile = compiler.compile({"planted.cu", source, {}, name, session.device().arch(), {}});
  ASSERT_TRUE(rec.compile.ok) << rec.compile.log;
  session.set_problem(p, family.default_tolerance(p.dtype), 7);
  session.run_candidate(rec, StoppingRule{}, 0, 0, /*verify_only=*/true);
  EXPECT_NE(rec.disposition, Disposition::passed) << describe(p);
  EXPECT_FALSE(rec.reason.empty());
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

TEST(MemoryBoundGpu, APlantedWrongLayerNormIsRejected) {
  KTUNE_REQUIRE_GPU();
  // The unbiased variance (divided by cols - 1, as torch.var defaults to): rstd off by about
  // 1 / (2 cols), 0.5% at 100 columns.
  const std::string source = R"(
    extern "C" __global__ void planted_layernorm(const float* x, const float* w, const float* b, float* y,
                                                 float* mean_out, float* rstd_out, long long rows, int cols,
                                                 float eps) {
      long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (r >= rows) return;
      const float* in = x + r * cols;
      float mean = 0;
      for (int c = 0; c < cols; ++c) mean += in[c];
      mean /= cols;
      float var = 0;
      for (int c = 0; c < cols; ++c) var += (in[c] - mean) * (in[c] - mean);
      float rstd = rsqrtf(var / (cols - 1) + eps);
      mean_out[r] = mean;
      rstd_out[r] = rstd;
      for (int c = 0; c < cols; ++c) y[r * cols + c] = (in[c] - mean) * rstd * w[c] + b[c];
    })";
  Launch l;
  l.block[0] = 128;
  l.grid[0] = (300 + 127) / 128;
  expect_rejected({"layernorm", {{"rows", 300}, {"cols", 100}}, "fp32", {{"eps", "1e-5"}}}, source,
                  "planted_layernorm", l);
}

TEST(MemoryBoundGpu, AnRmsNormThatForgetsItsStatisticsIsRejected) {
  KTUNE_REQUIRE_GPU();
  // Y is right, but rstd is never written (it stays poisoned): the statistics are outputs too.
  const std::string source = R"(
    extern "C" __global__ void planted_rmsnorm(const float* x, const float* w, const float* b, float* y,
                                               float* mean_out, float* rstd_out, long long rows, int cols,
                                               float eps) {
      long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (r >= rows) return;
      const float* in = x + r * cols;
      float squares = 0;
      for (int c = 0; c < cols; ++c) squares += in[c] * in[c];
      float rstd = rsqrtf(squares / cols + eps);
      for (int c = 0; c < cols; ++c) y[r * cols + c] = in[c] * rstd * w[c];
    })";
  Launch l;
  l.block[0] = 128;
  l.grid[0] = (300 + 127) / 128;
  expect_rejected({"rmsnorm", {{"rows", 300}, {"cols", 100}}, "fp32", {{"eps", "1e-5"}}}, source,
                  "planted_rmsnorm", l);
}

TEST(MemoryBoundGpu, APlantedWrongLayerNormBackwardIsRejected) {
  KTUNE_REQUIRE_GPU();
  // dX without the mean(g) term (the gradient through the mean forgotten); dW and dB are right.
  const std::string source = R"(
    extern "C" __global__ void planted_layernorm_bwd(const float* x, const float* w, const float* dy,
                                                     const float* mean, const float* rstd, float* dx, float* dw,
                                                     float* db, float* acc, unsigned* arrivals, long long rows,
                                                     int cols) {
      long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
      if (r < rows) {
        float gx = 0;
        for (int c = 0; c < cols; ++c) gx += w[c] * dy[r * cols + c] * (x[r * cols + c] - mean[r]) * rstd[r];
        for (int c = 0; c < cols; ++c) {
          float xhat = (x[r * cols + c] - mean[r]) * rstd[r];
          dx[r * cols + c] = (w[c] * dy[r * cols + c] - xhat * gx / cols) * rstd[r];
        }
      }
      if (r < cols) {
        float sw = 0, sb = 0;
        for (long long i = 0; i < rows; ++i) {
          sw += dy[i * cols + r] * (x[i * cols + r] - mean[i]) * rstd[i];
          sb += dy[i * cols + r];
        }
        dw[r] = sw;
        db[r] = sb;
      }
    })";
  Launch l;
  l.block[0] = 128;
  l.grid[0] = (300 + 127) / 128;
  expect_rejected({"layernorm_backward", {{"rows", 300}, {"cols", 100}}, "fp32", {}}, source,
                  "planted_layernorm_bwd", l);
}

}  // namespace
}  // namespace ktune
