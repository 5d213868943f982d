// Reads the resource figures out of the `ptxas -v` part of an NVRTC log: registers, spills,
// stack, static shared memory, and the lines where ptxas says it gave up performance (C75xx).
// Pure text processing, so it is tested on captured logs without a GPU.
#pragma once

#include <string_view>

#include "core/record.hpp"

namespace ktune {

// Overwrites registers, spill_stores, spill_loads, stack_frame, static_smem and perf_warnings.
// The figures are those of the entry function named info.lowered_name when the log has it, else
// of the only entry, else the largest over all entries (the conservative reading). Spills of
// non-entry functions (non-inlined callees) are added, since they cost the kernel that calls them.
// registers stays -1 when the log has no "Used N registers" line (e.g. a front-end error).
void parse_ptxas_report(std::string_view log, CompileInfo& info);

}  // namespace ktune
