// Which of a sweep's valid candidates to take when not all of them: enough that every code path
// of the kernel is exercised, for tests that run a spread of each sweep and for `ktune compile
// --sample`, which keeps the offline compile of every family affordable as sweeps grow.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.hpp"

namespace ktune {

// Indices into `params` (the valid candidates' tunables, in enumeration order), ascending: the
// first, middle and last; then, for every value a tunable takes among them, the first candidate
// with it if no pick has it yet; then, while fewer than `limit`, candidates evenly strided over
// the whole list. The value picks are kept even past `limit` (0: those picks alone). None for an
// empty list.
std::vector<size_t> spread_picks(const std::vector<Bindings>& params, size_t limit = 0);

// The (tunable, value) pairs already compiled, shared by the calls of one config.
using CoveredValues = std::set<std::pair<std::string, int64_t>>;

// Indices into `params`, ascending, for a small run that still touches everything: candidates
// that together have every (tunable, value) pair `covered` does not (added to it), most new pairs
// first, so over a config's problems every value compiles once; where nothing is new, the middle
// candidate, so every problem (its dtype, options and sizes compiled in) still compiles one.
std::vector<size_t> cover_picks(const std::vector<Bindings>& params, CoveredValues& covered);

}  // namespace ktune
