#include "core/element.hpp"

namespace ktune {
namespace {

// int8_t is `signed char` and int64_t `long` in device code as on the host (LP64): the C++ names
// here are the types themselves, so that a kernel written with either spelling matches.
constexpr ElementType kElements[] = {
    {"fp32", "float", 4, true, true},          {"fp16", "__half", 2, true, true},
    {"bf16", "__nv_bfloat16", 2, true, true},  {"fp8", "__nv_fp8_e4m3", 1, true, true},
    {"i8", "signed char", 1, false, true},     {"u8", "unsigned char", 1, false, false},
    {"i32", "int", 4, false, true},            {"u32", "unsigned int", 4, false, false},
    {"i64", "long long", 8, false, true},
};

}  // namespace

const ElementType* find_element(std::string_view name) {
  if (name == "f32") name = "fp32";
  if (name == "f16") name = "fp16";
  for (const ElementType& e : kElements)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> element_names() {
  std::vector<std::string> out;
  for (const ElementType& e : kElements) out.emplace_back(e.name);
  return out;
}

}  // namespace ktune
