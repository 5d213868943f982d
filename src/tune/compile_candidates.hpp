// From a config and a problem to compiled candidates, the part of a sweep that needs no GPU:
// enumerate, count what the constraints ruled out and record the other invalid ones with their
// reason, compile the rest in parallel, and reject
// what the compiler says is not the kernel it claims to be (register spills, ptxas
// "potential performance loss" warnings). `ktune compile` stops here; a sweep goes on to run them,
// compiling in the search's order while it times what is compiled (tune/tuner.cpp), from the
// same three steps: enumerate_candidates, compile_request, judge_compile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compile/compiler.hpp"
#include "compile/kernel_source.hpp"
#include "families/family.hpp"
#include "space/sweep_config.hpp"
#include "core/record.hpp"

namespace ktune {

struct CompileOptions {
  std::string arch;     // "sm_90a"
  int jobs = 0;         // compile threads, 0 = all cores
  bool allow_spills = false;
  bool show_progress = true;
  // Which of the valid candidates to compile (indices into their tunables, ascending), or every
  // one when empty: `ktune compile --sample` and `--quick` (space/spread.hpp). The others are
  // recorded not_run with `left_out` as their reason.
  std::function<std::vector<size_t>(const std::vector<Bindings>&)> pick;
  std::string left_out = "not in the sample";
};

// A config's candidates for one problem.
struct SweepCandidates {
  // One per combination the enumeration kept, in its order (space/enumerate.hpp).
  std::vector<CandidateRecord> records;
  // What a constraint ruled out, counted by constraint; every combination, where the config is
  // not for the arch.
  std::vector<RuledOut> ruled_out;
};

// Records `invalid` with the reason (an evaluation error), or not_run with an empty reason
// (valid, to compile), its estimate set where the config has one.
SweepCandidates enumerate_candidates(const SweepConfig& config, const KernelFamily& family,
                                                  const Problem& problem, const ArchFacts& arch);

// What NVRTC is asked for one candidate's kernel; with `params`, the kernel's parameter list is
// checked against them as it compiles (compile/parameter_check.hpp).
CompileRequest compile_request(const KernelSource& source, const CandidateRecord& rec, const std::string& arch,
                               const std::vector<KernelParam>& params = {});

// Stores the compile result in `rec` and rules on it: compile_failed (the log's first error line
// as reason), invalid for spills (unless allowed) or ptxas performance warnings, else it stays
// not_run, ready to run.
void judge_compile(CandidateRecord& rec, CompileInfo info, bool allow_spills);

// Records `invalid`, `compile_failed`, not_run with compile.ok set (ready to run), or not_run
// without it (left out by options.pick).
SweepCandidates compile_candidates(Compiler& compiler, const SweepConfig& config,
                                                const KernelSource& source, const KernelFamily& family,
                                                const Problem& problem, const ArchFacts& arch,
                                                const CompileOptions& options);

}  // namespace ktune
