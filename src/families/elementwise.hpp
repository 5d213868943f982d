// What the memory-bound families share: element sizes and names by dtype, the context names every
// one of them offers, and what the row-wise ones (a row-major rows x cols tensor) share on top.
#pragma once

#include <cstdint>
#include <map>
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

// The row-wise families (softmax, the norms, bias_gelu_dropout): dimensions rows and cols.
// Context names rows, cols, then `extra` (the family's own), then the device's.
std::vector<std::string> row_context_names(std::vector<std::string> extra = {});
// rows, cols and the device's; the family adds the values of its extra names.
Bindings row_context(const Problem& p, const ArchFacts& arch);
// ELEMENT (the dtype's C++ type) and COLS (the row length, for kernels that compile it in).
std::map<std::string, std::string> row_placeholders(const Problem& p);
// rows and cols at least 1 and at most max_rows and max_cols (the kernels' index types), else
// ConfigError.
void validate_rows(const Problem& p, int64_t max_rows, int64_t max_cols);

}  // namespace ktune::elementwise
