#include "gpu/timing_loop.hpp"

#include <algorithm>

#include "cuda/resources.hpp"
#include "gpu/cooldown.hpp"
#include "gpu/cupti_samples.hpp"
#include "gpu/event_samples.hpp"
#include "gpu/gpu_context.hpp"
#include "gpu/held_stream.hpp"

namespace ktune {
namespace {

// Enqueues `count` samples and returns their times once the last one has finished, by the
// context's method: the events timer (event_samples), with the stream held while a batch is
// enqueued (held_stream), a rest before each sample (cooldown), the kernels' own timestamps
// (cupti_samples). Enqueuing a few at a time keeps the GPU busy without letting the host run far
// ahead of the stopping rule. works[i] is sample i's work.
std::vector<double> timed_batch(GpuContext& gpu, const std::vector<const std::function<void()>*>& works,
                                std::vector<cuda::Event>& events) {
  const int count = static_cast<int>(works.size());
  const TimingMethod& method = gpu.timing();
  auto enqueue = [&](int from, int to) {
    HeldStream held(gpu, method.hold);
    enqueue_event_samples(gpu, works, from, to, events);
  };
  if (method.cooldown_ms > 0) {
    for (int i = 0; i < count; ++i) {  // one isolated sample at a time
      cool_down(gpu, method.cooldown_ms);
      enqueue(i, i + 1);
    }
  } else {
    enqueue(0, count);
  }
  std::vector<double> ms = event_sample_times(events, count);
  if (method.timer == "cupti") take_cupti_times(gpu, ms);
  return ms;
}

std::vector<double> timed_batch(GpuContext& gpu, const std::function<void()>& work, int count,
                                std::vector<cuda::Event>& events) {
  return timed_batch(gpu, std::vector<const std::function<void()>*>(static_cast<size_t>(count), &work), events);
}

}  // namespace

Measurement measure(GpuContext& gpu, const std::function<void()>& work, const StoppingRule& rule,
                    double warmup_ms, double best_so_far_ms) {
  std::vector<cuda::Event> events;
  // Warmup by time, with the same flushes as the timed samples: module load, clocks and caches
  // settle before anything counts.
  const double idle = gpu.timing().cooldown_ms;  // counts as warmup time: it is time spent
  double estimate = timed_batch(gpu, work, 1, events)[0];
  double warmed = estimate + idle;
  while (warmed < warmup_ms) {
    int count = std::clamp(static_cast<int>((warmup_ms - warmed) / std::max(estimate + idle, 1e-3)), 1, 64);
    auto ms = timed_batch(gpu, work, count, events);
    for (double t : ms) warmed += t + idle;
    estimate = ms.back();
  }

  Measurement m;
  while (true) {
    // About 2 ms of work per batch, so the rule is consulted often on slow kernels.
    int count = std::clamp(static_cast<int>(2.0 / std::max(estimate, 1e-3)), 1, 16);
    for (double t : timed_batch(gpu, work, count, events)) {
      m.samples_ms.push_back(t);
      m.stop = should_stop(rule, m.samples_ms, best_so_far_ms);
      if (m.stop != StopReason::keep_going) return m;
    }
    estimate = m.samples_ms.back();
  }
}

PairedMeasurement measure_paired(GpuContext& gpu, const std::function<void()>& a, const std::function<void()>& b,
                                 int samples, double warmup_ms) {
  std::vector<cuda::Event> events;
  // Pairs in alternating order (a b, b a, a b, ...), so neither always follows the other's flush.
  auto pairs = [&](int n, int first_pair) {
    std::vector<const std::function<void()>*> works;
    for (int p = 0; p < n; ++p) {
      const bool a_first = (first_pair + p) % 2 == 0;
      works.push_back(a_first ? &a : &b);
      works.push_back(a_first ? &b : &a);
    }
    return works;
  };
  auto split = [&](const std::vector<double>& ms, int first_pair, PairedMeasurement& into) {
    for (size_t i = 0; i + 1 < ms.size(); i += 2) {
      const bool a_first = (first_pair + static_cast<int>(i / 2)) % 2 == 0;
      into.a_ms.push_back(a_first ? ms[i] : ms[i + 1]);
      into.b_ms.push_back(a_first ? ms[i + 1] : ms[i]);
    }
  };
  const double idle = gpu.timing().cooldown_ms;  // counts as warmup time: it is time spent
  PairedMeasurement warm;
  split(timed_batch(gpu, pairs(1, 0), events), 0, warm);
  double estimate = warm.a_ms.back() + warm.b_ms.back(), warmed = estimate + 2 * idle;
  while (warmed < warmup_ms) {
    const int n =
        std::clamp(static_cast<int>((warmup_ms - warmed) / std::max(estimate + 2 * idle, 1e-3)), 1, 32);
    for (double t : timed_batch(gpu, pairs(n, 0), events)) warmed += t + idle;
  }
  PairedMeasurement m;
  int done = 0;
  while (done < samples) {
    const int n = std::min(samples - done, std::clamp(static_cast<int>(2.0 / std::max(estimate, 1e-3)), 1, 8));
    split(timed_batch(gpu, pairs(n, done), events), done, m);
    done += n;
  }
  return m;
}

}  // namespace ktune
