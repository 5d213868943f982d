// What the worker reports about the GPU it runs on: the device block of every result file and
// part of every cache key.
#pragma once

#include "core/record.hpp"

namespace ktune::cuda {

DeviceInfo query_device();  // device 0; throws NoGpuError without one

}  // namespace ktune::cuda
