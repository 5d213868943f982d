#include "space/spread.hpp"

#include <algorithm>
#include <set>

namespace ktune {

std::vector<size_t> spread_picks(const std::vector<Bindings>& params, size_t limit) {
  const size_t n = params.size();
  if (n == 0) return {};
  std::set<size_t> picks = {0, n / 2, n - 1};
  auto has = [&](const std::string& name, int64_t value) {
    for (size_t i : picks)
      if (params[i].at(name) == value) return true;
    return false;
  };
  for (size_t c = 0; c < n; ++c)
    for (const auto& [name, value] : params[c])
      if (!has(name, value)) picks.insert(c);
  // Evenly strided fill: positions k * n / want for the candidates still wanted, so the sample
  // spreads over every region of the space (the enumeration order groups by the first tunables).
  for (size_t want = std::min(limit, n), k = 0; picks.size() < want && k < want; ++k) picks.insert(k * n / want);
  for (size_t c = 0; picks.size() < std::min(limit, n) && c < n; ++c) picks.insert(c);
  return {picks.begin(), picks.end()};
}

std::vector<size_t> cover_picks(const std::vector<Bindings>& params, CoveredValues& covered) {
  // Greedy set cover: the candidate with the most values not yet covered, first in enumeration
  // order on ties, until none adds one. Within a factor ln(values) of the fewest kernels, and
  // O(picks x candidates), cheap beside one compile.
  auto adds = [&](const Bindings& b) {
    size_t n = 0;
    for (const auto& pair : b) n += !covered.count(pair);
    return n;
  };
  std::vector<size_t> picks;
  for (;;) {
    size_t best = params.size(), best_adds = 0;
    for (size_t c = 0; c < params.size(); ++c)
      if (size_t n = adds(params[c]); n > best_adds) best = c, best_adds = n;
    if (best_adds == 0) break;
    picks.push_back(best);
    for (const auto& pair : params[best]) covered.insert(pair);
  }
  if (picks.empty() && !params.empty()) picks.push_back(params.size() / 2);
  std::sort(picks.begin(), picks.end());
  return picks;
}

}  // namespace ktune
