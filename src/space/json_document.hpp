// A JSON file read to be checked, whose every error names file:line:col. nlohmann::json parses the
// text but keeps no source positions, so a second, tiny pass over the (by then known-good) text
// records where every key and value starts; an error can then point at a key, a value, or a
// character inside a string (an expression's unknown name). Sweep configs
// (space/sweep_config.cpp) and family declarations (families/declaration.cpp) are read through it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "space/expr.hpp"

namespace ktune {

using Json = nlohmann::ordered_json;  // ordered: what a file lists in order keeps its order

bool is_identifier(std::string_view s);  // [A-Za-z_][A-Za-z0-9_]*
std::string join_names(const std::vector<std::string>& items);  // "a, b, c"
// " (did you mean X?)" when one known name is a likely typo of `name`, else "".
std::string suggestion(std::string_view name, const std::vector<std::string>& known);
// JSON pointers: "/parameters" + "BLOCK_M" -> "/parameters/BLOCK_M"; "/problems" + 2 -> "/problems/2".
std::string pointer_child(const std::string& parent, std::string_view key);
std::string pointer_child(const std::string& parent, size_t index);

class JsonPositions;

class JsonDocument {
 public:
  // Parses `text`; ConfigError "origin:line:col: ..." for malformed JSON, nesting too deep or a
  // key given twice in one object (which nlohmann would silently merge).
  JsonDocument(std::string_view text, std::string origin);
  ~JsonDocument();
  JsonDocument(JsonDocument&&) noexcept;

  const Json& root() const { return doc_; }
  const std::string& text() const { return text_; }
  const std::string& origin() const { return origin_; }
  const Json& at(const std::string& pointer) const { return doc_.at(Json::json_pointer(pointer)); }
  bool has(const std::string& pointer) const { return doc_.contains(Json::json_pointer(pointer)); }

  // ConfigError at a byte offset of the text, at the value `pointer` names (the document itself
  // for ""), or at the key it names.
  [[noreturn]] void fail_offset(size_t offset, const std::string& message) const;
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const;
  [[noreturn]] void fail_key(const std::string& pointer, const std::string& message) const;
  static std::string last_key(const std::string& pointer);
  // "origin:line:col" of the value `pointer` names, for an error found after reading (a kernel
  // the file names that does not compile).
  std::string where(const std::string& pointer) const;
  // File offset of character `index` of the string at `pointer` (its start when not a string).
  size_t in_string(const std::string& pointer, size_t index) const;

  // The object at `path` has only `known` keys (an unknown one is named, with a guess) and every
  // `required` one.
  void check_keys(const std::string& path, const std::vector<std::string>& known,
                  const std::vector<std::string>& required) const;
  std::string get_string(const std::string& pointer, bool allow_empty) const;
  int64_t get_int(const std::string& pointer, const std::string& what) const;
  double get_number(const std::string& pointer, const std::string& what) const;
  const Json& get_typed(const std::string& pointer, Json::value_t type, const char* type_name) const;
  // An expression field, a string or an integer, parsed (a syntax error points into the string).
  // Its names are the caller's to check: see check_names.
  Expr get_expr_syntax(const std::string& pointer, const std::string& what) const;
  // Every name `e` (read at `pointer`) uses is in `allowed`, else an error at the name's character
  // naming what it could be (`known`, with a guess).
  void check_names(const Expr& e, const std::string& pointer, const std::string& what,
                   const std::set<std::string>& allowed, const std::vector<std::string>& known) const;

 private:
  Json parse_json() const;

  std::string text_;
  std::string origin_;
  Json doc_;
  std::unique_ptr<JsonPositions> positions_;
};

}  // namespace ktune
