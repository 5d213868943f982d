// When to stop timing a candidate: after enough samples to trust the median, at a time or sample
// cap, or early when it is clearly slower than the best candidate so far. Pure logic, so the GPU
// timing loop calls it between samples and the host tests pin it down.
//
// How "converged" is judged (docs/measurement.md): the spread of the samples is estimated robustly as
// IQR / 1.349 (the standard deviation of a normal distribution with the same interquartile range,
// so a few slow outliers from a context switch or a clock change do not inflate it). The standard
// error of the median is 1.2533 x spread / sqrt(n); sampling stops once that, relative to the
// median, is below noise_target (0.5% by default) and both minimums are met.
#pragma once

#include <vector>

namespace ktune {

struct StoppingRule {
  int min_samples = 10;         // never stop before
  double min_time_ms = 50;      // nor before this much measured time (sum of samples)
  double max_time_ms = 1000;    // stop here regardless
  int max_samples = 2000;
  double noise_target = 0.005;  // stop once the relative standard error of the median is below
  double prune_factor = 1.3;    // prune once p20 of our samples > prune_factor * best median so far
  int prune_min_samples = 5;    //   and we have at least this many samples
};

enum class StopReason { keep_going, converged, max_time, max_samples, pruned };

const char* to_string(StopReason r);

// Checked in this order: the caps (max_samples, then max_time), pruning, the minimums, then
// convergence. best_so_far_ms <= 0 (or NaN) means there is no best yet, so nothing is pruned.
// Sorts a copy of the samples: about 50 us a call at 2000 samples, so a loop timing kernels of a
// few microseconds may prefer to ask every few samples.
StopReason should_stop(const StoppingRule& rule, const std::vector<double>& samples_ms,
                       double best_so_far_ms);

// The relative standard error of the median estimate described above; +inf when the median is
// not positive (no meaningful relative error), 0 for fewer than two samples' spread.
double median_relative_error(const std::vector<double>& samples_ms);

// Throws ktune::ConfigError naming the first inconsistent field (e.g. min_samples > max_samples).
void validate(const StoppingRule& rule);

}  // namespace ktune
