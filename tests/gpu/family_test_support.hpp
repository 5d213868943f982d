// Shared by the GPU tests of kernel families: a session on the ktune under test, which valid
// candidates of a sweep to run so that every tunable's every value is exercised, running them
// against the family's reference, and running a planted wrong kernel.
#pragma once

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "compile/compile_all.hpp"
#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "gpu_test_support.hpp"
#include "space/enumerate.hpp"
#include "tune/session.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {

// A session whose worker is the ktune under test and whose compile cache is the test's own.
inline SessionOptions session_options(const std::filesystem::path& dir) {
  SessionOptions so;
  so.compile_cache_dir = dir;
  so.worker_executable = KTUNE_BINARY;
  return so;
}

// The first, middle and last valid candidates, then for every value a tunable takes among the
// valid ones (EPILOGUE 0 and 1, CLUSTER_M 1 and 2, ...) the first candidate with that value if no
// pick has it yet: every code path of a kernel runs on every ragged shape it accepts.
inline std::vector<size_t> spread_picks(const std::vector<Candidate>& valid) {
  std::vector<size_t> picks = {0, valid.size() / 2, valid.size() - 1};
  auto has = [&](const std::string& name, int64_t value) {
    for (size_t i : picks)
      if (valid[i].params.at(name) == value) return true;
    return false;
  };
  for (size_t c = 0; c < valid.size(); ++c)
    for (const auto& [name, value] : valid[c].params)
      if (!has(name, value)) picks.push_back(c);
  std::sort(picks.begin(), picks.end());
  picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
  return picks;
}

struct Checked {
  int runs = 0;
  std::set<std::string> configs;
};

// Runs the spread picks of every default config of the problem's family on `problems`.
inline Checked check_default_sweeps(const std::string& family_name, const std::vector<Problem>& problems) {
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

// A kernel with a bug planted, compiled from `source` and run as a candidate: rejected as
// incorrect (or as having written where it must not), never passed.
inline void expect_rejected(const Problem& p, const std::string& source, const std::string& name, const Launch& launch) {
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

}  // namespace ktune
