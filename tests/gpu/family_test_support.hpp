// Shared by the GPU tests of kernel families: a session on the ktune under test, which valid
// candidates of a sweep to run so that every tunable's every value is exercised, the check that
// runs them against the family's reference, and planted wrong kernels.
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "tune/session.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune {

// A session whose worker is the ktune under test and whose compile cache is the test's own.
SessionOptions session_options(const std::filesystem::path& dir);

// The valid candidates of `config` for `p` on a device of `arch`, in enumeration order.
std::vector<Candidate> valid_candidates(const SweepConfig& config, const KernelFamily& family, const Problem& p,
                                        const ArchFacts& arch);

// The record of candidate `c` of `config`, before it is compiled or run.
CandidateRecord candidate_record(const SweepConfig& config, const Candidate& c);

// space/spread.hpp's spread_picks over the candidates' tunables: every value of every tunable
// among the valid candidates, so every code path of a kernel runs on every ragged shape it accepts.
std::vector<size_t> spread_picks(const std::vector<Candidate>& valid);

// What check_default_sweeps ran.
struct SweepCheck {
  struct Ran {
    size_t problem;  // index into the problems checked
    Bindings params;
  };
  int runs = 0;
  std::set<std::string> configs;  // those with a candidate run
  int arch = 0;                   // the device's, as configs' min_arch counts it
  std::vector<Ran> ran;           // every candidate run (each one also checked to pass)
};

// Runs the spread picks of every default config of the family on each of `problems` in the
// worker, verify-only, each on fresh random inputs with a poisoned output, expecting every one to
// pass; and every baseline of each problem, expecting it to run.
SweepCheck check_default_sweeps(const std::string& family_name, const std::vector<Problem>& problems);

// A kernel compiled from `source` and run as a candidate on `p` in the worker, verify-only.
struct PlantedRun {
  Disposition disposition;
  std::string reason;
};
PlantedRun run_planted(const Problem& p, const std::string& source, const std::string& name, const Launch& launch);

// A kernel with a bug planted: rejected as incorrect (or as having written where it must not),
// never passed.
void expect_planted_rejected(const Problem& p, const std::string& source, const std::string& name,
                             const Launch& launch);

}  // namespace ktune
