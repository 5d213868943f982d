// A sweep config (configs/*.json): which kernel, which tunable parameters, what is derived from
// them, which combinations are allowed and how each one is launched. Everything a user can get
// wrong is checked here, at load time, with file:line:col in the message, so that a typo never
// reaches NVRTC or the GPU.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "space/expr.hpp"
#include "core/record.hpp"

namespace ktune {

// "tensor_maps": {"A": {"box": ["64", "BLOCK_M"], "swizzle": 128}, ...}: operands (A, B or C) the
// kernel takes as TMA descriptors; box expressions innermost dimension first. Where each one goes
// in the argument list is the family's business (Workload::kernel_args).
struct TensorMapExpr {
  std::string operand;
  Expr box[2];
  int swizzle = 0;
};

struct SweepConfig {
  std::string name, family, description;
  std::string kernel_path;         // as written in the file
  std::filesystem::path base_dir;  // folder of the config file ("" for embedded configs)
  std::string kernel_name;         // template with {NAME} placeholders
  int min_arch = 0;                // e.g. 80: the kernel needs sm_80 or newer
  int max_arch = 0;                // e.g. 90: instructions no later SM has (wgmma); 0: no limit
  std::vector<std::pair<std::string, std::vector<int64_t>>> parameters;  // file order
  std::vector<std::pair<std::string, Expr>> derived;                     // file order
  std::vector<Expr> constraints;
  Expr grid[3], block[3], shared_bytes;
  // "estimate": the predicted run time of a candidate (any unit shared by the family's configs,
  // lower is faster). It only orders the search (tune/search_order.hpp): the candidates a
  // budgeted search compiles and times first. Never a verdict; absent: no order is predicted.
  std::optional<Expr> estimate;
  // "exchanges": [["BLOCK_M", "BLOCK_N"]]: pairs of parameters whose values the guided search may
  // swap in one move (a tile's two sides: the estimate rarely tells a tile from its transpose,
  // and the operands' layouts decide which is faster). Only the search reads it.
  std::vector<std::pair<std::string, std::string>> exchanges;
  std::vector<TensorMapExpr> tensor_maps;
  bool maps_operand(std::string_view operand) const;  // "tensor_maps" names it
  std::vector<Bindings> problems;
  std::vector<std::string> dtypes;
  // "options": {"layout": ["rr", "cr"]}: values of the family's problem options to sweep, in file
  // order. The family checks names and values when the problems are made (families/schema.hpp);
  // "layouts": [...] is read as the old spelling of {"layout": [...]}.
  std::vector<std::pair<std::string, std::vector<std::string>>> options;
  std::string text;  // the file as read: any edit to it is a new best-config cache key
  // "file:line:col" of the "family" and "kernel" values, for mistakes found after reading (a family
  // or kernel file that does not exist).
  std::string family_where, kernel_where;
};

// The "dtypes" key accepts the element types' names (core/element.hpp); each family takes a subset.

// Parses and checks a config. `origin` names the text in error messages (a path).
// `context_names`: integer names the family and device provide to expressions (M, N, K,
// elem_bytes, ...). `placeholder_names`: string placeholders the family substitutes into
// kernel_name (ELEMENT, ...). `tensor_map_operands`: the operands the family's kernels may take as
// TMA descriptors (gemm: A, B, C; attention: Q, K, V), the keys "tensor_maps" may use.
// Throws ConfigError("origin:line:col: ...") on any bad input. families/family.hpp's
// parse_family_config passes a family's three lists.
// `dimension_names`, when given, are the keys "problems" may use (else any context name), so
// that a misspelt dimension is told the dimensions, not the device facts.
// Why the config's kernels cannot be built for or run on SM version `arch` (such as 90), or ""
// where they can: its min_arch and max_arch.
std::string arch_mismatch(const SweepConfig& config, int arch);

SweepConfig parse_sweep_config(std::string_view text, const std::string& origin,
                               const std::vector<std::string>& context_names,
                               const std::vector<std::string>& placeholder_names,
                               const std::vector<std::string>& tensor_map_operands,
                               const std::vector<std::string>& dimension_names = {});

// Reads `file`, then parse_sweep_config with the file's path as origin and its folder as base_dir.
SweepConfig load_sweep_config(const std::filesystem::path& file,
                              const std::vector<std::string>& context_names,
                              const std::vector<std::string>& placeholder_names,
                              const std::vector<std::string>& tensor_map_operands,
                              const std::vector<std::string>& dimension_names = {});

// One {NAME} in a kernel_name template; `offset` is the byte offset of the '{'.
struct Placeholder {
  std::string name;
  size_t offset = 0;
};

// The {NAME} placeholders of a template in order. Throws SyntaxError ("column C: ...") for an
// unmatched brace or a name that is not an identifier.
std::vector<Placeholder> find_placeholders(std::string_view tmpl);

}  // namespace ktune
