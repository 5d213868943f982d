// What the memory-bound families share: element sizes and names by dtype, the context names every
// one of them offers, and the launch of a reference kernel over a problem.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"

namespace ktune::elementwise {

int64_t element_bytes(const std::string& dtype);    // fp32 4, fp16/bf16 2
const char* element_name(const std::string& dtype);  // "float", "__half", "__nv_bfloat16"
// The dtypes the memory-bound families take, the default first.
std::vector<std::string> dtypes();
// Names every memory-bound family's expressions may use beside its own dimensions: elem_bytes,
// arch, max_smem, sm_count.
std::vector<std::string> device_context_names();
Bindings device_context(const std::string& dtype, const ArchFacts& arch);

}  // namespace ktune::elementwise
