// The GPU tests' shared family checks (family_test_support.hpp): the default sweeps against the
// reference, and planted kernels, through the worker as ktune itself runs candidates.
#include "family_test_support.hpp"

#include "compile/compile_all.hpp"
#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "gpu_test_support.hpp"
#include "space/spread.hpp"

namespace ktune {

SessionOptions session_options(const std::filesystem::path& dir) {
  SessionOptions so;
  so.compile_cache_dir = dir;
  so.worker_executable = KTUNE_BINARY;
  return so;
}

std::vector<Candidate> valid_candidates(const SweepConfig& config, const KernelFamily& family, const Problem& p,
                                        const ArchFacts& arch) {
  std::vector<Candidate> valid;
  for (Candidate& c : enumerate(config, family.context(p, arch), family.placeholders(p)).candidates)
    if (c.valid) valid.push_back(std::move(c));
  return valid;
}

CandidateRecord candidate_record(const SweepConfig& config, const Candidate& c) {
  CandidateRecord rec;
  rec.config_name = config.name;
  rec.params = c.params;
  rec.kernel_name = c.kernel_name;
  rec.launch = c.launch;
  return rec;
}

std::vector<size_t> spread_picks(const std::vector<Candidate>& valid) {
  std::vector<Bindings> params;
  for (const Candidate& c : valid) params.push_back(c.params);
  return spread_picks(params);
}

SweepCheck check_default_sweeps(const std::string& family_name, const std::vector<Problem>& problems) {
  auto dir = test::scratch_dir(family_name);
  const KernelFamily& family = find_family(family_name);
  Session session(session_options(dir));
  const DeviceInfo& device = session.device();
  NvrtcCompiler compiler(dir);
  SweepCheck out;
  out.arch = arch_facts(device).arch;
  for (size_t pi = 0; pi < problems.size(); ++pi) {
    const Problem& p = problems[pi];
    std::vector<CandidateRecord> recs;
    std::vector<CompileRequest> requests;
    for (std::string_view path : family.default_configs()) {
      SweepConfig config = parse_family_config(family, *find_embedded(path), std::string(path));
      if (config.min_arch > out.arch) continue;
      KernelSource source = resolve_kernel_source(config);
      std::vector<Candidate> valid = valid_candidates(config, family, p, arch_facts(device));
      if (valid.empty()) continue;
      for (size_t idx : spread_picks(valid)) {
        recs.push_back(candidate_record(config, valid[idx]));
        requests.push_back({source.name, source.text, source.headers, recs.back().kernel_name, device.arch(), {}});
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
      out.ran.push_back({pi, recs[i].params});
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

PlantedRun run_planted(const Problem& p, const std::string& source, const std::string& name, const Launch& launch) {
  auto dir = test::scratch_dir("planted-" + p.family);
  Session session(session_options(dir));
  NvrtcCompiler compiler(dir);
  CandidateRecord rec;
  rec.config_name = "planted";
  rec.kernel_name = name;
  rec.launch = launch;
  rec.compile = compiler.compile({"planted.cu", source, {}, name, session.device().arch(), {}});
  EXPECT_TRUE(rec.compile.ok) << rec.compile.log;
  if (!rec.compile.ok) return {Disposition::compile_failed, rec.compile.log};
  session.set_problem(p, find_family(p.family).default_tolerance(p.dtype), 7);
  session.run_candidate(rec, StoppingRule{}, 0, 0, /*verify_only=*/true);
  return {rec.disposition, rec.reason};
}

void expect_planted_rejected(const Problem& p, const std::string& source, const std::string& name,
                             const Launch& launch) {
  const PlantedRun run = run_planted(p, source, name, launch);
  EXPECT_NE(run.disposition, Disposition::passed) << describe(p);
  EXPECT_FALSE(run.reason.empty());
}

}  // namespace ktune
