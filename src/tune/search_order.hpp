// Which of a sweep's valid candidates are compiled and timed, and in what order.
//
// Exhaustive: all of them, in enumeration order, in one batch. Otherwise a guided search of at
// most max_candidates in batches: first the winners of the nearest shapes already in the cache
// (seeds), each config's best-predicted candidate, and the best-predicted candidates of all by
// their config's "estimate" (space/sweep_config.hpp): the first half of the opening in predicted
// order, the second one candidate a region (predictions the estimate cannot tell apart count
// once); then, batch after batch, the untried
// neighbours of the fastest candidates measured so far (each config's fastest first, where it is
// within SearchOptions::rival of the fastest of all): one tunable moved up or down, or two
// tunables' values exchanged where the config names the pair in "exchanges" (with one more change
// where the exchange alone is not valid). A batch takes one step in every direction (leader, and
// tunable with its sense, or pair) before a second in any, best predicted first within a
// direction; where the leaders have no neighbour left, the next predicted. The estimate finds the
// region, the measurements settle the details it cannot see (pipeline depth, epilogue, raster
// order). A config without an estimate predicts nothing: its candidates are all searched in the
// first batch unless the user capped the search. --budget (tune/tuner.cpp) can end the search
// sooner.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/record.hpp"
#include "scale/shard.hpp"

namespace ktune {

struct SearchOptions {
  bool exhaustive = false;               // every valid candidate, in enumeration order
  std::optional<size_t> max_candidates;  // set: the user's cap, on every candidate
  double budget_s = 0;                   // > 0: no candidate starts after this many seconds of the sweep
  // Set: only the valid candidates whose index among them (enumeration order) is I modulo N are
  // searched: one problem's candidates spread over the jobs of an array, whose caches `ktune
  // merge` then combines (the faster entry per key).
  std::optional<Shard> shard;
  // The cap when the user set none, the first batch's predicted candidates, how many neighbours a
  // later batch holds and of how many leaders. Chosen on the exhaustive H100 sweeps in
  // results/h100/sweeps (tests/host/test_search_order.cpp replays the search on them).
  static constexpr size_t default_cap = 40, opening = 12, batch = 8, leaders = 2;
  // A config's fastest measured candidate this close to the fastest of all (relative time) leads
  // before any config's second fastest (GuidedSearch::next_batch).
  static constexpr double rival = 1.15;
  // Predictions this close (relative) are one region to the opening (GuidedSearch::next_batch).
  // The gemm configs' tie-breaks (ring depth, and the epilogue in gemm_wgmma) move EST_SM by at
  // most 15 cycles: under 0.1% where a CTA's work takes more than 15,000 cycles. A tile of
  // another shape moves it more; a 2-CTA cluster's launch cost (1,000 cycles) does too, up to
  // about a million cycles of work (at 8192^3 fp16 in 128x256 tiles, 2.1 million, the two
  // cluster sizes are one region).
  static constexpr double same_region = 0.001;
};

// Per config name, the pairs of tunables a move may exchange (SweepConfig::exchanges).
using Exchanges = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;

// A configuration to try first: a nearby shape's winner.
struct SearchSeed {
  std::string config_name;
  Bindings params;
};

// The reason given to candidates a spent --budget leaves out.
std::string budget_reason(double budget_s);

class GuidedSearch {
 public:
  // Valid candidates are the records not_run with an empty reason. `records` must outlive the
  // search; the caller times each batch's records (their disposition and time) before asking for
  // the next batch.
  GuidedSearch(std::vector<CandidateRecord>& records, const std::vector<SearchSeed>& seeds, SearchOptions options,
               Exchanges exchanges = {});

  // Indices into the records to compile and time next; empty when the search is over.
  std::vector<size_t> next_batch();
  // Gives each valid candidate never searched the reason "not searched: ..." (`why` overrides it,
  // e.g. a spent budget), and returns what the search did: "40 of 289 valid candidates, ...".
  std::string finish(const std::string& why = "");

  size_t valid() const { return valid_.size(); }
  size_t searched() const { return searched_; }

 private:
  bool tried(size_t i) const { return tried_[i]; }
  size_t cap() const;
  void take(size_t i, std::vector<size_t>& batch);

  std::vector<CandidateRecord>& records_;
  SearchOptions options_;
  std::vector<size_t> valid_;      // enumeration order
  Exchanges exchanges_;
  std::set<std::pair<std::string, Bindings>> valid_params_;  // (config, params) valid, in any shard
  std::vector<size_t> predicted_;  // valid with an estimate, fastest predicted first (ties: enumeration order)
  std::vector<size_t> unpredicted_;
  std::vector<size_t> seeded_;
  std::vector<bool> tried_;
  size_t searched_ = 0, batches_ = 0, neighbours_ = 0;
};

}  // namespace ktune
