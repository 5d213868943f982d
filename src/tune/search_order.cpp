#include "tune/search_order.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace ktune {
namespace {

// The move that takes candidate `from` to `to`, or "" when they are not neighbours: same config,
// and either one tunable differs (the move is its name and sense: "SPLIT_K+", "SPLIT_K-") or the
// values of a pair the config lets exchange are swapped ("BLOCK_M<>BLOCK_N": a tile and its
// transpose). Where the exchange itself is not a valid candidate (`valid` says: a 64x128 tile in
// clusters of 2 along M at M = 128 has no 128x64 twin in such clusters), the exchange plus one
// more change is the move instead (128x64 without clusters).
std::string move_between(const CandidateRecord& from, const CandidateRecord& to,
                         const std::vector<std::pair<std::string, std::string>>& exchanges,
                         const std::function<bool(const Bindings&)>& valid) {
  if (from.config_name != to.config_name || from.params.size() != to.params.size()) return "";
  std::vector<std::string> differ;
  for (const auto& [name, value] : from.params) {
    auto it = to.params.find(name);
    if (it == to.params.end()) return "";
    if (it->second != value) differ.push_back(name);
  }
  if (differ.size() == 1) return differ[0] + (to.params.at(differ[0]) > from.params.at(differ[0]) ? "+" : "-");
  if (differ.size() != 2 && differ.size() != 3) return "";
  auto differs = [&](const std::string& name) { return std::find(differ.begin(), differ.end(), name) != differ.end(); };
  for (const auto& [x, y] : exchanges) {
    if (!differs(x) || !differs(y)) continue;
    if (from.params.at(x) != to.params.at(y) || from.params.at(y) != to.params.at(x)) continue;
    if (differ.size() == 2) return x + "<>" + y;
    Bindings swapped = from.params;
    std::swap(swapped[x], swapped[y]);
    if (!valid(swapped)) return x + "<>" + y;
  }
  return "";
}

}  // namespace

std::string budget_reason(double budget_s) {
  return fmt::format("not searched: the --budget of {:g} s was spent", budget_s);
}

GuidedSearch::GuidedSearch(std::vector<CandidateRecord>& records, const std::vector<SearchSeed>& seeds,
                           SearchOptions options, Exchanges exchanges)
    : records_(records), options_(options), exchanges_(std::move(exchanges)), tried_(records.size(), false) {
  size_t valid_index = 0;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].disposition == Disposition::not_run && records[i].reason.empty()) {
      // Whether an exchange is valid does not depend on which shard would run it.
      valid_params_.insert({records[i].config_name, records[i].params});
      if (options_.shard && !options_.shard->contains(valid_index++)) {
        records[i].reason = fmt::format("not searched: shard {} searches other candidates", options_.shard->str());
        continue;
      }
      valid_.push_back(i);
      (records[i].estimate ? predicted_ : unpredicted_).push_back(i);
    }
  std::stable_sort(predicted_.begin(), predicted_.end(),
                   [&](size_t a, size_t b) { return *records[a].estimate < *records[b].estimate; });
  if (!options_.exhaustive)
    for (const SearchSeed& seed : seeds)
      for (size_t i : valid_)
        if (records[i].config_name == seed.config_name && records[i].params == seed.params &&
            std::find(seeded_.begin(), seeded_.end(), i) == seeded_.end())
          seeded_.push_back(i);
}

size_t GuidedSearch::cap() const {
  if (options_.max_candidates) return *options_.max_candidates;
  // Without the user's cap, a config that predicts nothing is searched whole.
  return options_.exhaustive ? valid_.size() : SearchOptions::default_cap + unpredicted_.size();
}

void GuidedSearch::take(size_t i, std::vector<size_t>& batch) {
  if (tried_[i] || searched_ >= cap()) return;
  tried_[i] = true;
  ++searched_;
  batch.push_back(i);
}

std::vector<size_t> GuidedSearch::next_batch() {
  std::vector<size_t> batch;
  const bool first = batches_++ == 0;
  if (options_.exhaustive) {
    if (first)
      for (size_t i : valid_) take(i, batch);
    return batch;
  }
  if (first) {
    for (size_t i : seeded_) take(i, batch);
    // Each config's own best prediction first: an estimate orders one kernel's candidates better
    // than it compares two kernels (it misses, say, gemm_mma's unaligned loads at N = 1, where
    // gemm_dot streams), so no config is left out on its model's word alone.
    std::vector<std::string> configs;
    for (size_t i : predicted_) {
      if (batch.size() >= seeded_.size() + SearchOptions::opening) break;
      if (std::find(configs.begin(), configs.end(), records_[i].config_name) != configs.end()) continue;
      configs.push_back(records_[i].config_name);
      take(i, batch);
    }
    // Then the best predicted: the opening's first half (the configs' bests above included) in
    // predicted order, its second half one candidate a region. Predictions within
    // SearchOptions::same_region of one already taken from the same config are ones the estimate
    // does not tell apart (its tie-breaks, and what it does not model: raster order, often
    // pipeline depth and epilogue), which the neighbour moves settle. In predicted order alone,
    // at 5120^3 fp8 the opening's eleven gemm_wgmma places went to one 128x144 pingpong tile
    // (ten pipelines and rasters in 2-CTA clusters, and one without), and the third tile the
    // estimate ranked, a cooperative 128x224 (session 28's winner there,
    // results/h200/pingpong-wide-s29), went unsearched. Places the regions leave go in predicted
    // order.
    auto same_region = [&](size_t i) {
      return std::any_of(batch.begin(), batch.end(), [&](size_t j) {
        if (!records_[j].estimate || records_[j].config_name != records_[i].config_name) return false;
        const double a = static_cast<double>(*records_[i].estimate), b = static_cast<double>(*records_[j].estimate);
        return std::abs(a - b) <= SearchOptions::same_region * std::max(std::abs(a), std::abs(b));
      });
    };
    const size_t opening_end = seeded_.size() + SearchOptions::opening;
    for (size_t i : predicted_) {
      if (batch.size() >= seeded_.size() + SearchOptions::opening / 2) break;
      take(i, batch);
    }
    for (size_t i : predicted_) {
      if (batch.size() >= opening_end) break;
      if (!tried(i) && !same_region(i)) take(i, batch);
    }
    for (size_t i : predicted_) {
      if (batch.size() >= opening_end) break;
      take(i, batch);
    }
    for (size_t i : unpredicted_) take(i, batch);
    return batch;
  }
  // The leaders: the fastest passing candidates measured so far. Each config's fastest within
  // SearchOptions::rival of the fastest of all comes before any config's second: a config whose
  // estimate flatters it can put its whole opening ahead of another config's best-predicted
  // candidate, and the neighbours of that one (one tunable away) can be the fastest of all. An
  // H200 measured it in session 36 (results/h200/nvfp4-bulk-s36): a bulk-copy decode kernel's
  // candidates led at 0.0202 ms, one of the register path's best-predicted ran at 0.0215 with
  // SPLIT_K=2, and its neighbour with SPLIT_K=1, 0.0175 ms, was never timed.
  std::vector<size_t> fastest;
  for (size_t i = 0; i < records_.size(); ++i)
    if (tried_[i] && records_[i].disposition == Disposition::passed && records_[i].time) fastest.push_back(i);
  std::stable_sort(fastest.begin(), fastest.end(),
                   [&](size_t a, size_t b) { return records_[a].time->median < records_[b].time->median; });
  std::vector<size_t> leaders;
  std::set<std::string> led;
  for (size_t i : fastest) {
    if (leaders.size() >= SearchOptions::leaders) break;
    if (records_[i].time->median > records_[fastest.front()].time->median * SearchOptions::rival) break;
    if (led.insert(records_[i].config_name).second) leaders.push_back(i);
  }
  for (size_t i : fastest) {
    if (leaders.size() >= SearchOptions::leaders) break;
    if (std::find(leaders.begin(), leaders.end(), i) == leaders.end()) leaders.push_back(i);
  }
  // Their untried neighbours, grouped by leader and move (the tunable changed and its sense, or
  // the pair swapped), each group best predicted first; the batch takes the groups' firsts, then their
  // seconds, ... so every direction from a leader is tried before a second step along any one.
  // Estimates rank the values of a tunable they model, but tie or misorder those they do not
  // (GROUP_M, NUM_STAGES at one occupancy): in plain predicted order those could fill every
  // batch while SPLIT_K=32, two steps from the leader along the axis that matters, waits.
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;  // (leader:move, candidates)
  const std::vector<std::pair<std::string, std::string>> no_exchanges;
  for (const std::vector<size_t>* pool : {&predicted_, &unpredicted_})
    for (size_t i : *pool) {
      if (tried_[i]) continue;
      for (size_t l : leaders) {
        auto pairs = exchanges_.find(records_[l].config_name);
        const std::string move = move_between(
            records_[l], records_[i], pairs == exchanges_.end() ? no_exchanges : pairs->second,
            [&](const Bindings& params) { return valid_params_.count({records_[l].config_name, params}) > 0; });
        if (move.empty()) continue;
        const std::string key = std::to_string(l) + ":" + move;
        auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& e) { return e.first == key; });
        if (g == groups.end()) groups.emplace_back(key, std::vector<size_t>{i});
        else g->second.push_back(i);
        break;
      }
    }
  for (size_t rank = 0; batch.size() < SearchOptions::batch; ++rank) {
    bool any = false;
    for (const auto& [key, members] : groups) {
      if (rank >= members.size()) continue;
      any = true;
      if (batch.size() >= SearchOptions::batch) break;
      const size_t before = batch.size();
      take(members[rank], batch);
      neighbours_ += batch.size() > before;
    }
    if (!any) break;
  }
  if (batch.empty())
    for (size_t i : predicted_) {
      if (batch.size() >= SearchOptions::batch) break;
      take(i, batch);
    }
  return batch;
}

std::string GuidedSearch::finish(const std::string& why) {
  const std::string reason =
      !why.empty() ? why
      : options_.exhaustive
          ? fmt::format("not searched: beyond --max-candidates {}", searched_)
          : fmt::format("not searched: the guided search stopped after {} (--exhaustive runs every candidate)",
                        searched_);
  for (size_t i : valid_)
    if (!tried_[i]) records_[i].reason = reason;
  const std::string share = options_.shard ? fmt::format(" in shard {}'s share", options_.shard->str()) : "";
  if (options_.exhaustive)
    return fmt::format("{} of {} valid candidates{} (exhaustive)", searched_, valid_.size(), share);
  std::string out = fmt::format("{} of {} valid candidates{}, guided", searched_, valid_.size(), share);
  if (!seeded_.empty()) out += fmt::format(": {} seeded from the nearest tuned shapes", seeded_.size());
  if (!predicted_.empty())
    out += fmt::format("{} the configs' estimates, then {} neighbours of the fastest", seeded_.empty() ? ": by" : ", then by",
                       neighbours_);
  return out;
}

}  // namespace ktune
