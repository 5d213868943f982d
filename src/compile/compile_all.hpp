// Compiles a batch of requests on a pool of threads: a sweep's candidates are independent
// programs, and NVRTC is thread-safe for separate programs, so the batch scales with cores.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "compile/compiler.hpp"

namespace ktune {

// Results come back in request order. threads <= 0 means std::thread::hardware_concurrency().
// progress(done, total) is called once per finished request, from the worker threads but never
// two at a time. If compiler.compile or progress throws, no new request is started, the threads
// are joined and the first exception is rethrown here.
std::vector<CompileInfo> compile_all(Compiler& compiler,
                                     const std::vector<CompileRequest>& requests, int threads,
                                     const std::function<void(size_t, size_t)>& progress = {});

}  // namespace ktune
