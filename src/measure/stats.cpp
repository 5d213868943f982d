// Summary statistics over timing samples; see stats.hpp.
#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace ktune {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw Error("percentile of no samples");
  const double h = (static_cast<double>(sorted.size()) - 1) * std::clamp(q, 0.0, 100.0) / 100.0;
  const size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

TimeStats summarize(std::vector<double> samples) {
  if (samples.empty()) throw Error("cannot summarize zero timing samples");
  for (double s : samples)
    if (!std::isfinite(s)) throw Error("non-finite timing sample");
  std::sort(samples.begin(), samples.end());

  TimeStats t;
  t.n = samples.size();
  t.min = samples.front();
  t.max = samples.back();
  t.median = percentile_sorted(samples, 50);
  t.p20 = percentile_sorted(samples, 20);
  t.p80 = percentile_sorted(samples, 80);
  t.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(t.n);
  if (t.n > 1) {
    double sq = 0;
    for (double s : samples) sq += (s - t.mean) * (s - t.mean);  // two-pass: no cancellation
    t.stdev = std::sqrt(sq / static_cast<double>(t.n - 1));
  }
  return t;
}

}  // namespace ktune
