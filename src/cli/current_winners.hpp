// Cached winners as today's sweep configs build them. A cache entry keeps the parameters its
// winner was chosen with, and the kernel name and launch of the config as it was then; once a
// config gains a tunable (gemm_wgmma's STREAM_K, a template argument), the stored name no longer
// instantiates. bench and verify rebuild a recorded winner from its parameters (the new tunable at
// its first value, which runs the kernel as it ran: space/enumerate.hpp's recorded_params); the
// table `export`, `lookup` and `--no-tune` hand out is rebuilt the same way here.
#pragma once

#include <string>
#include <vector>

#include "store/cache.hpp"

namespace ktune::cli {

// Each entry's kernel name and launch, rebuilt from its parameters by its family's built-in
// config of the winner's name, on the entry's GPU (compute capability and SM count from its key).
// An entry no built-in config rebuilds (another family or config, a user's sweep, parameters the
// config now rules out) keeps what it stored, and `notes` says which and why.
std::vector<CacheEntry> current_winners(std::vector<CacheEntry> entries, std::vector<std::string>& notes);

}  // namespace ktune::cli
