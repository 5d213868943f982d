// The worker process (`ktune __worker`): owns the CUDA context, runs candidates one at a time as
// the parent asks (tune/protocol.hpp). A candidate that corrupts the context takes down this
// process only; the parent classifies it and starts a new worker.
#pragma once

#include <filesystem>

namespace ktune {

int run_worker(const std::filesystem::path& compile_cache_dir);

}  // namespace ktune
