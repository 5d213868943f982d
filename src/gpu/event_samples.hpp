// The events timer: each sample is [L2 flush, start event, the work, end event] on the context's
// stream, the flush outside the timed region; its time is the events' elapsed time.
#pragma once

#include <functional>
#include <vector>

#include "cuda/resources.hpp"

namespace ktune {

class GpuContext;

// Enqueues samples from..to-1 of `works` (works[i] enqueues sample i's work), recording their
// events into events[2i] and events[2i+1] (grown as needed).
void enqueue_event_samples(GpuContext& gpu, const std::vector<const std::function<void()>*>& works, int from,
                           int to, std::vector<cuda::Event>& events);

// The times of the first `count` samples, in ms, once the last has finished.
std::vector<double> event_sample_times(std::vector<cuda::Event>& events, int count);

}  // namespace ktune
