// The element types ktune can allocate, fill with random data, widen and compare on the GPU: the
// problems' dtypes (fp32, fp16, bf16, fp8 = e4m3) and the integer types a declared family's
// buffers may hold. One table, so that a name means the same size and C++ type everywhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct ElementType {
  std::string_view name;  // "fp32", "bf16", "i8", ...: what configs, declarations and records say
  std::string_view cpp;   // the C++ type NVRTC code names it by: "float", "__nv_bfloat16", "signed char"
  int bytes = 0;
  bool is_float = false;
  bool is_signed = false;
};

// By name; "f32" and "f16" are read as "fp32" and "fp16". nullptr for a name no element has.
const ElementType* find_element(std::string_view name);
// The canonical names, in the table's order (fp32, fp16, bf16, fp8, i8, u8, i32, u32, i64).
std::vector<std::string> element_names();

}  // namespace ktune
