#include "gpu/cupti_samples.hpp"

#include <fmt/format.h>

#include "gpu/gpu_context.hpp"
#include "measure/kernel_samples.hpp"
#include "util/error.hpp"

namespace ktune {

void take_cupti_times(GpuContext& gpu, std::vector<double>& ms) {
  // Earlier samples were flushed away after the previous batch.
  const std::vector<SampleTime> kernel_times = gpu.cupti_samples();
  const size_t count = ms.size();
  if (kernel_times.size() < count)
    throw Error(fmt::format("CUPTI delivered {} samples for a batch of {}", kernel_times.size(), count));
  for (size_t i = 0; i < count; ++i) {
    const SampleTime& k = kernel_times[kernel_times.size() - count + i];
    if (!k.has_work()) throw Error("CUPTI saw no kernel or copy in a timed sample");
    ms[i] = k.busy_ms();
  }
}

}  // namespace ktune
