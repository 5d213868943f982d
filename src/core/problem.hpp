// What a problem is, for every kernel family: the family's name, its named integer dimensions, a
// dtype and the family's options (GEMM's operand layout, an attention's causal mask, ...). The
// family says which dimensions and options exist (families/family.hpp, ProblemSchema); this is
// only the data, so every layer can hold a problem without knowing any family.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace ktune {

// Integer names visible to constraint/launch expressions: parameters, derived values, problem
// dimensions and family/device facts. Ordered so that printing is stable.
using Bindings = std::map<std::string, int64_t>;

// A family's string-valued choices for a problem, by name: {"layout": "rc"}.
using Options = std::map<std::string, std::string>;

struct Problem {
  std::string family;  // "gemm"
  Bindings dims;       // {"K":..., "M":..., "N":...}
  std::string dtype;   // "fp16" | "bf16" | "fp8" (e4m3 in, bf16 out) | "fp32"
  Options options;     // gemm: {"layout": "rr"}

  // The option's value, or "" when the problem does not set it.
  std::string option(const std::string& name) const {
    auto it = options.find(name);
    return it == options.end() ? std::string() : it->second;
  }
  bool operator==(const Problem&) const = default;
};

}  // namespace ktune
