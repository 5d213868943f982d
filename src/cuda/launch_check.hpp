// What stands between a loaded kernel and a launch of it, checked before the launch so that the
// answer is a sentence in the user's terms rather than a launch error: shared by the tuner's
// worker (a candidate that cannot run is classified, the sweep goes on) and the runtime (a row
// that cannot run is passed over for the next).
#pragma once

#include <cuda.h>

#include <string>

#include "core/device.hpp"
#include "core/record.hpp"
#include "cuda/driver.hpp"

namespace ktune::cuda {

// Why `f` cannot be launched with `launch` on `device`, or "": the threads per block against
// the kernel's limit (its registers decide it), shared memory against the device's opt-in
// limit. Where it can, raises the kernel's dynamic shared memory limit to what the launch asks
// and, from Hopper on, lets it take clusters beyond the portable 8 blocks.
std::string prepare_launch(const DriverApi& api, CUfunction f, const Launch& launch, const DeviceInfo& device);

}  // namespace ktune::cuda
