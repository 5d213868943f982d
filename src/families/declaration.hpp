// A kernel family declared in a JSON file (`rope.family.json`) rather than written in C++: what
// its problems are made of, the buffers and scalars its kernels take and in which order, what a
// problem costs, how outputs are judged, and the user's own reference kernel (the way Kernel
// Tuner takes `answer`). families/declared_family.cpp turns one into a KernelFamily; nothing
// above families/ knows the difference. The format is documented in docs/declared-families.md.
//
// Every mistake is a ConfigError "file:line:col: ..." raised here, when the file is read: an
// unknown type, an expression naming an unknown dimension, an argument naming nothing declared.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/element.hpp"
#include "families/tolerance.hpp"
#include "space/expr.hpp"

namespace ktune {

// How an input's contents are drawn (seeded from the workload's seed and the buffer's position).
struct BufferInit {
  enum class Kind { normal, uniform, integers, ones, zeros, iota };
  Kind kind = Kind::normal;
  double a = 0, b = 1;  // normal: mean, std; uniform: low, high; integers: low, high (inclusive); iota: start, step
  // "integers" bounds given as expressions of the dimensions ("high": "bins - 1"), replacing a, b.
  std::optional<Expr> a_expr, b_expr;
};

// What a buffer is to the kernel: read only, written (compared with the reference), read and written in
// place (restored before every checked launch, then compared), or scratch (zeroed, never compared).
enum class BufferUse { input, output, inout, scratch };

struct BufferDecl {
  std::string name;
  std::string type;  // "dtype" (the problem's element type) or an element name ("fp32", "i32", ...)
  Expr count;        // elements, from the dimensions
  BufferUse use = BufferUse::input;
  BufferInit init;   // inputs and inout buffers
  // Outputs only: zeroed before every launch instead of poisoned, for kernels that add into their
  // output (a histogram's atomics). Scratch buffers are always zeroed before every launch.
  bool zeroed = false;
  // Float outputs: tolerances by dtype name ("" for every dtype), replacing the family's.
  std::map<std::string, Tolerance> tolerance;
};

// One kernel argument: a buffer (its pointer), a dimension or an expression passed as a scalar.
struct ArgumentDecl {
  std::string name;
  std::string buffer;                 // set for a buffer argument
  std::string scalar_type;            // "int32", "int64", "uint32", "uint64", "float", "double"
  std::optional<Expr> int_value;      // integer expression over the dimensions
  std::optional<double> real_value;   // a float or double given as a number
};

// A kernel the family runs itself: the reference, or the user's production kernel as a baseline.
struct KernelCallDecl {
  std::string file;                   // as written
  std::filesystem::path path;         // resolved against the declaration's folder
  std::string text;                   // the file as read
  std::string kernel_name;            // template with {ELEMENT}, {option}, {dim} placeholders
  Expr grid[3], block[3], shared_bytes;
  std::vector<ArgumentDecl> arguments;
  std::string label;                  // the baseline's name in records ("production rope")
  std::string location;               // "file:line:col" of its "kernel" key, for errors found later
};

struct Declaration {
  std::string name, summary;
  std::filesystem::path file;  // absolute
  std::string text;            // the declaration as read
  struct Dim {
    std::string name, help, defaults_to;
  };
  std::vector<Dim> dims;
  std::vector<std::pair<std::string, std::string>> dtypes;  // element name -> C++ type, default first
  struct Option {
    std::string name, help;
    std::vector<std::string> choices;
    std::string default_value;
  };
  std::vector<Option> options;
  std::vector<std::pair<std::string, Expr>> constraints;  // text, expression over the dimensions
  std::vector<BufferDecl> buffers;
  std::vector<ArgumentDecl> arguments;
  bool memory_bound = true;
  std::optional<Expr> flops, bytes;  // bytes absent: every input, output and inout buffer once
  std::map<std::string, Tolerance> tolerance;  // by dtype name, over the built-in defaults
  KernelCallDecl reference;
  bool reference_in_fp32 = true;  // float outputs: the reference writes fp32 ("outputs": "fp32") or their own type
  std::optional<KernelCallDecl> baseline;
  std::vector<std::string> configs;  // sweep configs, resolved to absolute paths
};

// Reads a declaration. `origin` names it in errors, `folder` resolves the files it names.
// Throws ConfigError("origin:line:col: ...").
Declaration parse_declaration(std::string_view text, const std::string& origin, const std::filesystem::path& folder);
Declaration load_declaration(const std::filesystem::path& file);

// The C++ type of an argument as the kernel must declare it, for the parameter check:
// "const __nv_bfloat16*" for an input buffer of a bf16 problem, "int" for an int32 scalar.
std::string argument_cpp_type(const Declaration& d, const ArgumentDecl& a, const std::string& dtype,
                              bool reference_outputs_fp32);

}  // namespace ktune
