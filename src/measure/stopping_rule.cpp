// The stopping rule for the timing loop; see stopping_rule.hpp for what it decides and why.
#include "measure/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "measure/stats.hpp"
#include "util/error.hpp"

namespace ktune {

namespace {

// sigma of a normal distribution = IQR / 1.349; the median's standard error is sqrt(pi/2) =
// 1.2533 times the mean's.
constexpr double kIqrToSigma = 1.0 / 1.349;
constexpr double kMedianEfficiency = 1.2533;

double relative_error_sorted(const std::vector<double>& sorted) {
  const double median = percentile_sorted(sorted, 50);
  if (!(median > 0)) return std::numeric_limits<double>::infinity();
  const double sigma = (percentile_sorted(sorted, 75) - percentile_sorted(sorted, 25)) * kIqrToSigma;
  return kMedianEfficiency * sigma / std::sqrt(static_cast<double>(sorted.size())) / median;
}

}  // namespace

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::keep_going: return "keep_going";
    case StopReason::converged: return "converged";
    case StopReason::max_time: return "max_time";
    case StopReason::max_samples: return "max_samples";
    case StopReason::pruned: return "pruned";
  }
  return "unknown";
}

double median_relative_error(const std::vector<double>& samples_ms) {
  if (samples_ms.empty()) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  return relative_error_sorted(sorted);
}

StopReason should_stop(const StoppingRule& rule, const std::vector<double>& samples_ms,
                       double best_so_far_ms) {
  const int n = static_cast<int>(samples_ms.size());
  if (n >= rule.max_samples) return StopReason::max_samples;
  if (n == 0) return StopReason::keep_going;
  const double total_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0);
  if (total_ms >= rule.max_time_ms) return StopReason::max_time;

  std::vector<double> sorted = samples_ms;
  std::sort(sorted.begin(), sorted.end());
  // p20, not the median: we only give up on a candidate when even its fast samples lose.
  if (best_so_far_ms > 0 && n >= rule.prune_min_samples &&
      percentile_sorted(sorted, 20) > rule.prune_factor * best_so_far_ms)
    return StopReason::pruned;

  if (n < rule.min_samples || total_ms < rule.min_time_ms) return StopReason::keep_going;
  return relative_error_sorted(sorted) < rule.noise_target ? StopReason::converged
                                                           : StopReason::keep_going;
}

void validate(const StoppingRule& rule) {
  auto fail = [](const char* what) { throw ConfigError(std::string("stopping rule: ") + what); };
  if (rule.min_samples < 1) fail("min_samples must be at least 1");
  if (rule.max_samples < rule.min_samples) fail("max_samples must be >= min_samples");
  if (!(rule.min_time_ms >= 0)) fail("min_time_ms must be >= 0");
  if (!(rule.max_time_ms > 0)) fail("max_time_ms must be > 0");
  if (rule.max_time_ms < rule.min_time_ms) fail("max_time_ms must be >= min_time_ms");
  if (!(rule.noise_target > 0)) fail("noise_target must be > 0");
  if (!(rule.prune_factor >= 1)) fail("prune_factor must be >= 1 (below 1 prunes faster kernels)");
  if (rule.prune_min_samples < 1) fail("prune_min_samples must be at least 1");
}

}  // namespace ktune
