// What the worker reports about the GPU it runs on: the device block of every result file and
// part of every cache key.
#pragma once

#include "core/record.hpp"

namespace ktune::cuda {

DeviceInfo query_device(int ordinal = 0);  // throws NoGpuError without a GPU

}  // namespace ktune::cuda
