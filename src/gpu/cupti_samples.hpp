// The CUPTI timer (TimingMethod::timer "cupti"): the same samples the events timed, timed again by
// the GPU's own kernel timestamps, which leave out the launch gaps events include.
#pragma once

#include <vector>

namespace ktune {

class GpuContext;

// Replaces the times of the batch just finished (ms, one per sample) with the busy time CUPTI
// saw in each: the last ms.size() samples it delivered.
void take_cupti_times(GpuContext& gpu, std::vector<double>& ms);

}  // namespace ktune
