// Shared by the GPU tests of kernel families: a session on the ktune under test, and which valid
// candidates of a sweep to run so that every tunable's every value is exercised.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

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

}  // namespace ktune
