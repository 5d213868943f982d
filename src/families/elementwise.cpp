#include "families/elementwise.hpp"

namespace ktune::elementwise {

int64_t element_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

const char* element_name(const std::string& dtype) {
  if (dtype == "fp16") return "__half";
  if (dtype == "bf16") return "__nv_bfloat16";
  return "float";
}

std::vector<std::string> dtypes() { return {"fp32", "fp16", "bf16"}; }

std::vector<std::string> device_context_names() { return {"elem_bytes", "arch", "max_smem", "sm_count"}; }

Bindings device_context(const std::string& dtype, const ArchFacts& arch) {
  return {{"elem_bytes", element_bytes(dtype)}, {"arch", arch.arch}, {"max_smem", arch.max_smem},
          {"sm_count", arch.sm_count}};
}

}  // namespace ktune::elementwise
