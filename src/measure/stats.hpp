// Summary statistics over timing samples. Percentiles interpolate linearly between order
// statistics (numpy's default), so numbers here match a quick check in Python.
#pragma once

#include <vector>

#include "core/record.hpp"

namespace ktune {

// median, mean, min, max, sample stdev (n-1; 0 for one sample), p20, p80, n. Throws ktune::Error
// on an empty input or a non-finite sample (a timing bug, not a slow kernel).
TimeStats summarize(std::vector<double> samples);

// The q-th percentile (0..100) of `sorted` (ascending, non-empty), as numpy.percentile.
double percentile_sorted(const std::vector<double>& sorted, double q);

}  // namespace ktune
