#include "families/elementwise.hpp"

#include <fmt/format.h>

#include "core/element.hpp"
#include "util/error.hpp"

namespace ktune::elementwise {

// The memory-bound families take fp32, fp16 and bf16 (dtypes() below); the sizes and C++ names are
// the element table's (core/element.hpp).
int64_t element_bytes(const std::string& dtype) { return find_element(dtype)->bytes; }

const char* element_name(const std::string& dtype) { return find_element(dtype)->cpp.data(); }

std::vector<std::string> dtypes() { return {"fp32", "fp16", "bf16"}; }

std::vector<std::string> device_context_names() { return {"elem_bytes", "arch", "max_smem", "sm_count"}; }

Bindings device_context(const std::string& dtype, const ArchFacts& arch) {
  return {{"elem_bytes", element_bytes(dtype)}, {"arch", arch.arch}, {"max_smem", arch.max_smem},
          {"sm_count", arch.sm_count}};
}

std::vector<std::string> row_context_names(std::vector<std::string> extra) {
  std::vector<std::string> names = {"rows", "cols"};
  for (std::string& n : extra) names.push_back(std::move(n));
  for (std::string& n : device_context_names()) names.push_back(std::move(n));
  return names;
}

Bindings row_context(const Problem& p, const ArchFacts& arch) {
  Bindings b = device_context(p.dtype, arch);
  b["rows"] = p.dims.at("rows");
  b["cols"] = p.dims.at("cols");
  return b;
}

std::map<std::string, std::string> row_placeholders(const Problem& p) {
  return {{"ELEMENT", element_name(p.dtype)}, {"COLS", std::to_string(p.dims.at("cols"))}};
}

void validate_rows(const Problem& p, int64_t max_rows, int64_t max_cols) {
  for (const char* d : {"rows", "cols"})
    if (p.dims.at(d) <= 0) throw ConfigError(fmt::format("{} must be >= 1 (got {})", d, p.dims.at(d)));
  if (p.dims.at("rows") > max_rows)
    throw ConfigError(fmt::format("rows = {} is larger than {}", p.dims.at("rows"), max_rows));
  if (p.dims.at("cols") > max_cols)
    throw ConfigError(fmt::format("cols = {} is larger than {}", p.dims.at("cols"), max_cols));
}

}  // namespace ktune::elementwise
