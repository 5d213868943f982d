#include "store/results_merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "util/error.hpp"

namespace ktune {
namespace {

// A problem's identity and sort key: family, dtype, options and dimensions.
std::string problem_key(const Problem& p) {
  std::string key = p.family + " " + p.dtype;
  for (const auto& [name, value] : p.options) key += fmt::format(" {}={}", name, value);
  for (const auto& [name, value] : p.dims) key += fmt::format(" {}={}", name, value);
  return key;
}

std::string device_of(const DeviceInfo& d) {
  return fmt::format("{} (cc {}.{}, {} SMs)", d.name, d.cc_major, d.cc_minor, d.sm_count);
}

}  // namespace

ResultsMerge merge_results(const std::vector<ResultsInput>& inputs, bool allow_mixed_devices) {
  if (inputs.empty()) throw ConfigError("nothing to merge");
  std::set<std::string> devices;
  for (const ResultsInput& in : inputs) devices.insert(device_of(in.info.device));
  if (devices.size() > 1 && !allow_mixed_devices) {
    std::string list;
    for (const std::string& d : devices) list += (list.empty() ? "" : "; ") + d;
    throw ConfigError(fmt::format("the results come from {} GPU models ({}); merge them per GPU, or pass "
                                  "--allow-mixed-devices",
                                  devices.size(), list));
  }
  std::map<std::string, std::pair<const ProblemResult*, const std::string*>> by_problem;
  for (const ResultsInput& in : inputs)
    for (const ProblemResult& r : in.problems) {
      const auto [it, inserted] = by_problem.emplace(problem_key(r.problem), std::pair{&r, &in.origin});
      if (!inserted)
        throw ConfigError(fmt::format("{} is in both {} and {}: shards of one suite never share a problem",
                                      it->first, *it->second.second, in.origin));
    }
  ResultsMerge merged;
  const auto earliest = std::min_element(inputs.begin(), inputs.end(), [](const ResultsInput& a, const ResultsInput& b) {
    return std::tie(a.info.started_at, a.origin) < std::tie(b.info.started_at, b.origin);
  });
  merged.info = earliest->info;
  for (const auto& [key, entry] : by_problem) merged.problems.push_back(*entry.first);
  return merged;
}

}  // namespace ktune
