// The sweep for one problem: cache lookup, compile, reference, then every compiled candidate in
// the worker with the same timing as the reference, the best passing one cached.
#pragma once

#include <optional>
#include <utility>

#include "measure/stopping_rule.hpp"
#include "compile/compiler.hpp"
#include "compile/kernel_source.hpp"
#include "families/family.hpp"
#include "space/sweep_config.hpp"
#include "store/cache.hpp"
#include "store/results.hpp"
#include "tune/search_order.hpp"
#include "tune/session.hpp"

namespace ktune {

// --rtol / --atol / --norm-tol: each replaces one field of the family's default for the dtype.
struct ToleranceOverride {
  std::optional<double> rtol, atol, norm_rel;
};

struct TuneOptions {
  StoppingRule rule;
  double warmup_ms = 25;
  bool retune = false;            // ignore a cached best config
  bool allow_spills = false;
  int jobs = 0;                   // compile threads
  ToleranceOverride tolerance;    // on top of the family's per-dtype default
  uint64_t seed = 20261121;
  bool show_progress = true;
  // The final (tuner.cpp): up to `finalists` candidates within `final_margin` of the best sweep
  // median are re-measured with the baseline in `final_rounds` interleaved rounds,
  // `final_samples` samples each; the winner and its ratio come from there.
  int finalists = 4;
  double final_margin = 0.03;
  int final_rounds = 5;
  int final_samples = 50;
  SearchOptions search;
};

struct TuneResult {
  ProblemResult result;               // records[0] is the reference (cuBLAS) unless from_cache
  std::optional<size_t> best;         // index of the winner in result.records
  std::optional<CacheEntry> cached;   // set when answered from the cache
  std::string search;                 // the search plan: how many candidates, chosen how
  // compile_seconds: the compiles' span (they overlap the timing); run_seconds: the whole search,
  // from enumeration to the final's end.
  double compile_seconds = 0, run_seconds = 0;
  std::string cache_warning;          // the winner could not be cached, and why
};

// One sweep config with its kernel text. Several can be tuned together: their candidates compete
// and one winner is cached (ktune gemm on Hopper sweeps the mma.sync and wgmma families).
struct Sweep {
  SweepConfig config;
  KernelSource source;
};

// The sweeps a device runs (those it is not too old for) and the cache key of tuning them together
// for `problem`. ConfigError when the device runs none of them.
std::vector<const Sweep*> active_sweeps(const std::vector<Sweep>& sweeps, const DeviceInfo& device);
CacheKey sweeps_cache_key(const std::vector<const Sweep*>& active, const Problem& problem, const DeviceInfo& device,
                          const TuneOptions& options);

class Tuner {
 public:
  Tuner(Session& session, Compiler& compiler, BestConfigCache& cache, TuneOptions options);
  TuneResult tune(const std::vector<Sweep>& sweeps, const Problem& problem);
  TuneResult tune(const SweepConfig& config, const KernelSource& source, const Problem& problem) {
    return tune(std::vector<Sweep>{{config, source}}, problem);
  }

 private:
  static constexpr size_t kSeedShapes = 3;
  std::vector<SearchSeed> nearest_winners(const Problem& problem, const DeviceInfo& device) const;

  Session& session_;
  Compiler& compiler_;
  BestConfigCache& cache_;
  TuneOptions options_;
};

// Indices of the passed, unpruned records, fastest first, at most `count`: the best two, then
// those whose median is within `margin` of the best.
std::vector<size_t> pick_finalists(const std::vector<CandidateRecord>& records, int count, double margin);

Tolerance tolerance_for(const KernelFamily& family, const Problem& problem, const ToleranceOverride& override);

}  // namespace ktune
