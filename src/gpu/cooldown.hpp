// The cooldown method (TimingMethod::cooldown_ms): before a sample, the GPU finishes everything
// and idles for the given time, so each sample starts from a rested GPU (the clocks a kernel gets
// when it runs alone in an application, not in a tight loop).
#pragma once

namespace ktune {

class GpuContext;

void cool_down(GpuContext& gpu, double ms);

}  // namespace ktune
