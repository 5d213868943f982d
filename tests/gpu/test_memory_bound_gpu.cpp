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
};

// Runs the spread picks of every default config of the problem's family on `problems`.
Checked check_default_sweeps(const std::string& family_name, const std::vector<Problem>& problems) {
  auto dir = test::scratch_dir(family_name);
  const KernelFamily& family = find_family(family_name);
  Session session(session_options(dir));
  const DeviceInfo& device = session.device();
  NvrtcCompiler compiler(dir);
  Checked out;
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
                                                           {5, 4096},  {7, 32769},  {2, 100002}, {3, 262144}};
  for (const auto& [rows, cols] : shapes)
    for (std::string dtype : {"fp16", "bf16", "fp32"})
      problems.push_back({"softmax", {{"rows", rows}, {"cols", cols}}, dtype, {}});
  Checked c = check_default_sweeps("softmax", problems);
  EXPECT_TRUE(c.configs.count("softmax"));
  EXPECT_TRUE(c.configs.count("softmax_looped"));
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

}  // namespace
}  // namespace ktune
