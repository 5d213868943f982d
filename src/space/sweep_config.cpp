// Loading and checking sweep configs. nlohmann::json parses the text but keeps no source
// positions, so a second, tiny pass over the (by then known-good) text records where every key
// and value starts; every error can then say file:line:col, down to the character inside an
// expression string.
#include "space/sweep_config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "util/error.hpp"

namespace ktune {

using Json = nlohmann::ordered_json;  // ordered: "derived" is evaluated in file order

namespace {

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// " (did you mean X?)" when one known name is a likely typo of `name`, else "".
std::string suggestion(std::string_view name, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  size_t best_distance = 3;  // more than two edits away is not a typo
  for (const auto& k : known) {
    size_t d = edit_distance(name, k);
    if (d < best_distance) best_distance = d, best = &k;
  }
  return best ? fmt::format(" (did you mean {}?)", *best) : "";
}

// ---- where things are in the text ---------------------------------------------------------

struct LineCol {
  size_t line = 1, column = 1;
};

LineCol line_col(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  LineCol lc;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++lc.line, line_start = i + 1;
  lc.column = offset - line_start + 1;
  return lc;
}

std::string pointer_child(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {  // JSON pointer escaping, so that any key maps to one path
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string pointer_child(const std::string& parent, size_t index) {
  return parent + "/" + std::to_string(index);
}

// Byte offsets of every key and value in a JSON text that nlohmann has already accepted, keyed
// by JSON pointer ("/parameters/BLOCK_M/1"). Also catches duplicate keys, which nlohmann
// silently merges.
class JsonPositions {
 public:
  static constexpr int max_depth = 512;  // as deep as any config needs; keeps recursion bounded
  struct TooDeep {
    size_t offset;
  };

  explicit JsonPositions(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // UTF-8 byte order mark (nlohmann skips it)
    value("");
  }

  std::optional<size_t> value_at(const std::string& pointer) const {
    return find(values_, pointer);
  }
  std::optional<size_t> key_at(const std::string& pointer) const { return find(keys_, pointer); }
  // The first key that appears twice in one object: its pointer and the second occurrence.
  const std::optional<std::pair<std::string, size_t>>& duplicate() const { return duplicate_; }

  // Offset of the byte that holds decoded character `index` of the string starting at `quote`.
  size_t offset_in_string(size_t quote, size_t index) const {
    size_t r = quote + 1, decoded = 0;
    while (decoded < index && r < text_.size() && text_[r] != '"') {
      if (text_[r] != '\\') {
        ++r, ++decoded;
      } else if (text_[r + 1] != 'u') {
        r += 2, ++decoded;
      } else {
        unsigned code = std::stoul(std::string(text_.substr(r + 2, 4)), nullptr, 16);
        r += 6;
        if (code >= 0xD800 && code < 0xDC00)
          r += 6, decoded += 4;  // surrogate pair
        else
          decoded += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;  // UTF-8 length
      }
    }
    return r;
  }

 private:
  static std::optional<size_t> find(const std::map<std::string, size_t>& m, const std::string& p) {
    auto it = m.find(p);
    if (it == m.end()) return std::nullopt;
    return it->second;
  }

  void skip_space() {
    while (i_ < text_.size() && std::strchr(" \t\r\n", text_[i_]) && text_[i_] != '\0') ++i_;
  }

  std::string_view string_token() {
    size_t start = i_++;
    while (text_[i_] != '"') i_ += text_[i_] == '\\' ? 2 : 1;
    ++i_;
    return text_.substr(start, i_ - start);
  }

  void value(const std::string& path, int depth = 0) {
    if (depth > max_depth) throw TooDeep{i_};
    skip_space();
    values_[path] = i_;
    char c = text_[i_];
    if (c == '{') {
      ++i_;
      skip_space();
      while (text_[i_] != '}') {
        size_t key_offset = i_;
        auto key = Json::parse(string_token()).get<std::string>();
        std::string child = pointer_child(path, key);
        if (!keys_.emplace(child, key_offset).second && !duplicate_)
          duplicate_ = std::make_pair(child, key_offset);
        skip_space();
        ++i_;  // ':'
        value(child, depth + 1);
        skip_space();
        if (text_[i_] == ',') ++i_, skip_space();
      }
      ++i_;
    } else if (c == '[') {
      ++i_;
      skip_space();
      for (size_t index = 0; text_[i_] != ']'; ++index) {
        value(pointer_child(path, index), depth + 1);
        skip_space();
        if (text_[i_] == ',') ++i_, skip_space();
      }
      ++i_;
    } else if (c == '"') {
      string_token();
    } else {  // number, true, false, null
      while (i_ < text_.size() && !std::strchr(",]} \t\r\n", text_[i_])) ++i_;
    }
  }

  std::string_view text_;
  size_t i_ = 0;
  std::map<std::string, size_t> values_, keys_;
  std::optional<std::pair<std::string, size_t>> duplicate_;
};

// ---- the checker ---------------------------------------------------------------------------

// Which names an expression may use, and how to explain a name it may not.
struct Scope {
  std::set<std::string> allowed;
  std::set<std::string> later_derived;  // derived further down the file: a distinct message
  std::vector<std::string> all_known;   // for "did you mean"
};

class ConfigParser {
 public:
  ConfigParser(std::string_view text, const std::string& origin,
               const std::vector<std::string>& context_names,
               const std::vector<std::string>& placeholder_names,
               const std::vector<std::string>& tensor_map_operands)
      : text_(text),
        origin_(origin),
        context_(context_names.begin(), context_names.end()),
        placeholders_(placeholder_names.begin(), placeholder_names.end()),
        tensor_map_operands_(tensor_map_operands) {}

  SweepConfig parse() {
    doc_ = parse_json();
    try {
      positions_.emplace(text_);
    } catch (const JsonPositions::TooDeep& e) {
      fail_offset(e.offset,
                  fmt::format("JSON nested more than {} levels deep", JsonPositions::max_depth));
    }
    if (const auto& dup = positions_->duplicate())
      fail_offset(dup->second, fmt::format("duplicate key \"{}\"", last_key(dup->first)));
    if (!doc_.is_object())
      fail("", fmt::format("a sweep config is a JSON object, not {}", doc_.type_name()));
    check_keys(doc_, "",
               {"name", "family", "description", "notes", "kernel", "kernel_name", "min_arch",
                "parameters", "derived", "constraints", "estimate", "exchanges", "launch", "tensor_maps", "problems",
                "dtypes", "options", "layouts"},
               {"name", "family", "kernel", "kernel_name", "parameters", "launch"});

    SweepConfig c;
    c.name = get_string("/name", false);
    if (!std::all_of(c.name.begin(), c.name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-';
        }))
      fail("/name", fmt::format("name \"{}\" may only use letters, digits, '_' and '-'", c.name));
    c.family = get_string("/family", false);
    if (doc_.contains("description")) c.description = get_string("/description", true);
    c.kernel_path = get_string("/kernel", false);
    c.kernel_name = get_string("/kernel_name", false);
    if (doc_.contains("min_arch")) {
      int64_t arch = get_int("/min_arch", "min_arch");
      if (arch < 0 || arch > 10000)
        fail("/min_arch", fmt::format("min_arch {} is not an SM version such as 80 or 90", arch));
      c.min_arch = static_cast<int>(arch);
    }
    parse_parameters(c);
    parse_derived(c);
    parse_constraints(c);
    if (doc_.contains("estimate")) c.estimate = get_expr("/estimate", "estimate", scope(c, derived_names_.size()));
    parse_exchanges(c);
    parse_launch(c);
    parse_tensor_maps(c);
    check_kernel_name(c);
    check_parameters_have_effect(c);
    parse_problems(c);
    c.dtypes = parse_choices("dtypes", known_dtypes);
    parse_options(c);
    return c;
  }

 private:
  // -- errors --

  [[noreturn]] void fail_offset(size_t offset, const std::string& message) const {
    LineCol lc = line_col(text_, offset);
    throw ConfigError(fmt::format("{}:{}:{}: {}", origin_, lc.line, lc.column, message));
  }

  // At the value `pointer` names (the document itself for "").
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    fail_offset(positions_->value_at(pointer).value_or(0), message);
  }

  [[noreturn]] void fail_key(const std::string& pointer, const std::string& message) const {
    fail_offset(positions_->key_at(pointer).value_or(0), message);
  }

  static std::string last_key(const std::string& pointer) {
    return Json(Json::json_pointer(pointer).back()).get<std::string>();
  }

  Json parse_json() const {
    try {
      return Json::parse(text_);
    } catch (const Json::parse_error& e) {
      // what() is "[json.exception.parse_error.101] parse error at line L, column C: detail";
      // keep the detail and report the position in the file's own terms.
      std::string what = e.what();
      size_t colon = what.find(": ", what.find("parse error"));
      std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
      size_t offset = e.byte > 0 ? e.byte - 1 : 0;
      // After an unexpected string (typically: a missing comma before a key) nlohmann points at
      // its closing quote; the opening quote is where a reader looks.
      if (detail.find("unexpected string literal") != std::string::npos && offset < text_.size() &&
          text_[offset] == '"') {
        while (offset > 0 &&
               !(text_[offset - 1] == '"' && (offset < 2 || text_[offset - 2] != '\\')))
          --offset;
        if (offset > 0) --offset;
      }
      fail_offset(offset, "malformed JSON: " + detail);
    }
  }

  // -- typed access --

  const Json& at(const std::string& pointer) const { return doc_.at(Json::json_pointer(pointer)); }

  void check_keys(const Json& object, const std::string& path,
                  const std::vector<std::string>& known,
                  const std::vector<std::string>& required) const {
    for (const auto& [key, value] : object.items())
      if (std::find(known.begin(), known.end(), key) == known.end())
        fail_key(pointer_child(path, key), fmt::format("unknown key \"{}\"{}; known keys: {}", key,
                                                       suggestion(key, known), join(known)));
    for (const auto& key : required)
      if (!object.contains(key)) fail(path, fmt::format("missing required key \"{}\"", key));
  }

  std::string get_string(const std::string& pointer, bool allow_empty) const {
    const Json& j = at(pointer);
    if (!j.is_string())
      fail(pointer, fmt::format("\"{}\" must be a string, not {}", last_key(pointer), j.dump()));
    if (!allow_empty && j.get_ref<const std::string&>().empty())
      fail(pointer, fmt::format("\"{}\" must not be empty", last_key(pointer)));
    return j.get<std::string>();
  }

  int64_t get_int(const std::string& pointer, const std::string& what) const {
    const Json& j = at(pointer);
    if (!j.is_number_integer())
      fail(pointer, fmt::format("{}: {} is not an integer", what, j.dump()));
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))
      fail(pointer, fmt::format("{}: {} does not fit in int64", what, j.dump()));
    return j.get<int64_t>();
  }

  const Json& get_typed(const std::string& pointer, Json::value_t type,
                        const char* type_name) const {
    const Json& j = at(pointer);
    if (j.type() != type)
      fail(pointer,
           fmt::format("\"{}\" must be {}, not {}", last_key(pointer), type_name, j.type_name()));
    return j;
  }

  // -- expressions --

  // An expression field: a string (parsed) or an integer (a constant). `what` names it in messages.
  Expr get_expr(const std::string& pointer, const std::string& what, const Scope& scope) const {
    const Json& j = at(pointer);
    if (!j.is_string() && !j.is_number_integer())
      fail(pointer,
           fmt::format("{} must be an expression string or an integer, not {}", what, j.dump()));
    std::string text =
        j.is_string() ? j.get<std::string>() : std::to_string(get_int(pointer, what));
    Expr e;
    try {
      e = Expr::parse(text);
    } catch (const SyntaxError& err) {
      fail_offset(in_string(pointer, err.column() - 1),
                  fmt::format("syntax error in {} \"{}\": {}", what, text, err.message()));
    }
    for (const auto& use : e.name_uses()) {
      if (scope.allowed.count(use.name)) continue;
      size_t offset = in_string(pointer, use.column - 1);
      if (scope.later_derived.count(use.name))
        fail_offset(offset, fmt::format("{} uses \"{}\", which is derived further down; derived "
                                        "values are evaluated in file order",
                                        what, use.name));
      fail_offset(
          offset,
          fmt::format("{} uses unknown name \"{}\"{}: not a parameter, a derived value "
                      "or a context name ({})",
                      what, use.name, suggestion(use.name, scope.all_known), join(context_list())));
    }
    return e;
  }

  // File offset of character `index` of the string at `pointer`.
  size_t in_string(const std::string& pointer, size_t index) const {
    size_t quote = positions_->value_at(pointer).value_or(0);
    if (!at(pointer).is_string()) return quote;
    return positions_->offset_in_string(quote, index);
  }

  std::vector<std::string> context_list() const { return {context_.begin(), context_.end()}; }

  Scope scope(const SweepConfig& c, size_t derived_visible) const {
    Scope s;
    s.allowed = context_;
    for (const auto& [name, values] : c.parameters) s.allowed.insert(name);
    for (size_t i = 0; i < derived_names_.size(); ++i)
      (i < derived_visible ? s.allowed : s.later_derived).insert(derived_names_[i]);
    s.all_known.assign(s.allowed.begin(), s.allowed.end());
    return s;
  }

  // -- sections --

  // A new name (parameter or derived) must not hide a context or placeholder name.
  void check_new_name(const std::string& pointer, const std::string& name, const char* what) const {
    if (!is_identifier(name))
      fail_key(pointer, fmt::format("{} name \"{}\" is not an identifier ([A-Za-z_][A-Za-z0-9_]*)",
                                    what, name));
    if (context_.count(name))
      fail_key(pointer,
               fmt::format("{} \"{}\" has the name of a context value that the family provides",
                           what, name));
    if (placeholders_.count(name))
      fail_key(
          pointer,
          fmt::format("{} \"{}\" has the name of a string placeholder that the family provides",
                      what, name));
  }

  void parse_parameters(SweepConfig& c) const {
    const Json& params = get_typed("/parameters", Json::value_t::object, "an object");
    if (params.empty()) fail("/parameters", "\"parameters\" must name at least one parameter");
    for (const auto& [name, values] : params.items()) {
      std::string pointer = pointer_child("/parameters", name);
      check_new_name(pointer, name, "parameter");
      if (!values.is_array() || values.empty())
        fail(pointer, fmt::format("parameter {} must be a non-empty list of integers, not {}", name,
                                  values.dump()));
      std::vector<int64_t> list;
      for (size_t i = 0; i < values.size(); ++i) {
        std::string element = pointer_child(pointer, i);
        int64_t v = get_int(element, "parameter " + name);
        if (std::find(list.begin(), list.end(), v) != list.end())
          fail(element, fmt::format("parameter {}: value {} is listed twice", name, v));
        list.push_back(v);
      }
      c.parameters.emplace_back(name, std::move(list));
    }
  }

  void parse_derived(SweepConfig& c) {
    if (!doc_.contains("derived")) return;
    const Json& derived = get_typed("/derived", Json::value_t::object, "an object");
    for (const auto& [name, value] : derived.items()) {
      std::string pointer = pointer_child("/derived", name);
      check_new_name(pointer, name, "derived value");
      if (std::any_of(c.parameters.begin(), c.parameters.end(),
                      [&](const auto& p) { return p.first == name; }))
        fail_key(pointer, fmt::format("derived value \"{}\" has the name of a parameter", name));
      derived_names_.push_back(name);
    }
    for (size_t i = 0; i < derived_names_.size(); ++i) {
      const std::string& name = derived_names_[i];
      c.derived.emplace_back(
          name, get_expr(pointer_child("/derived", name), "derived " + name, scope(c, i)));
    }
  }

  void parse_constraints(SweepConfig& c) const {
    if (!doc_.contains("constraints")) return;
    const Json& list = get_typed("/constraints", Json::value_t::array, "a list");
    Scope s = scope(c, derived_names_.size());
    for (size_t i = 0; i < list.size(); ++i)
      c.constraints.push_back(
          get_expr(pointer_child("/constraints", i), fmt::format("constraint {}", i + 1), s));
  }

  void parse_exchanges(SweepConfig& c) const {
    if (!doc_.contains("exchanges")) return;
    const Json& list = get_typed("/exchanges", Json::value_t::array, "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string pointer = pointer_child("/exchanges", i);
      const Json& pair = list[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        fail(pointer, fmt::format("an exchange is a pair of parameter names, such as [\"BLOCK_M\", \"BLOCK_N\"], not {}",
                                  pair.dump()));
      const std::string a = pair[0].get<std::string>(), b = pair[1].get<std::string>();
      for (size_t j = 0; j < 2; ++j) {
        const std::string& name = j == 0 ? a : b;
        if (std::none_of(c.parameters.begin(), c.parameters.end(), [&](const auto& p) { return p.first == name; }))
          fail(pointer_child(pointer, j), fmt::format("exchange names \"{}\", which is not a parameter", name));
      }
      if (a == b) fail(pointer, fmt::format("an exchange needs two different parameters, not \"{}\" twice", a));
      c.exchanges.emplace_back(a, b);
    }
  }

  void parse_launch(SweepConfig& c) const {
    get_typed("/launch", Json::value_t::object, "an object");
    check_keys(at("/launch"), "/launch", {"grid", "block", "shared_bytes"}, {"grid", "block"});
    Scope s = scope(c, derived_names_.size());
    for (const char* key : {"grid", "block"}) {
      std::string pointer = pointer_child("/launch", key);
      const Json& dims = at(pointer);
      if (!dims.is_array() || dims.size() != 3)
        fail(pointer, fmt::format("launch.{} must be a list of 3 expressions (x, y, z), not {}",
                                  key, dims.dump()));
      Expr* out = std::string_view(key) == "grid" ? c.grid : c.block;
      for (size_t i = 0; i < 3; ++i)
        out[i] = get_expr(pointer_child(pointer, i), fmt::format("launch.{}[{}]", key, i), s);
    }
    if (at("/launch").contains("shared_bytes"))
      c.shared_bytes = get_expr("/launch/shared_bytes", "launch.shared_bytes", s);
  }

  void parse_tensor_maps(SweepConfig& c) const {
    if (!doc_.contains("tensor_maps")) return;
    const Json& maps = get_typed("/tensor_maps", Json::value_t::object, "an object");
    Scope s = scope(c, derived_names_.size());
    for (const auto& [operand, spec] : maps.items()) {
      std::string pointer = pointer_child("/tensor_maps", operand);
      if (std::find(tensor_map_operands_.begin(), tensor_map_operands_.end(), operand) == tensor_map_operands_.end())
        fail_key(pointer, tensor_map_operands_.empty()
                              ? fmt::format("tensor_maps: this family's kernels take no tensor maps (\"{}\")", operand)
                              : fmt::format("tensor_maps: operand \"{}\" is not one of {}", operand,
                                            fmt::join(tensor_map_operands_, ", ")));
      get_typed(pointer, Json::value_t::object, "an object");
      check_keys(spec, pointer, {"box", "swizzle"}, {"box"});
      std::string box_pointer = pointer_child(pointer, "box");
      if (!at(box_pointer).is_array() || at(box_pointer).size() != 2)
        fail(box_pointer, "tensor_maps." + operand + ".box must be a list of 2 expressions (inner, outer)");
      TensorMapExpr t;
      t.operand = operand;
      for (size_t i = 0; i < 2; ++i)
        t.box[i] = get_expr(pointer_child(box_pointer, i), fmt::format("tensor_maps.{}.box[{}]", operand, i), s);
      if (spec.contains("swizzle")) {
        int64_t sw = get_int(pointer_child(pointer, "swizzle"), "tensor_maps." + operand + ".swizzle");
        if (sw != 0 && sw != 32 && sw != 64 && sw != 128)
          fail(pointer_child(pointer, "swizzle"), fmt::format("swizzle {} is not 0, 32, 64 or 128 (bytes)", sw));
        t.swizzle = static_cast<int>(sw);
      }
      c.tensor_maps.push_back(std::move(t));
    }
  }

  void check_kernel_name(const SweepConfig& c) const {
    std::vector<Placeholder> found;
    try {
      found = find_placeholders(c.kernel_name);
    } catch (const SyntaxError& err) {
      fail_offset(in_string("/kernel_name", err.column() - 1), "kernel_name: " + err.message());
    }
    Scope s = scope(c, derived_names_.size());
    std::vector<std::string> known = s.all_known;
    known.insert(known.end(), placeholders_.begin(), placeholders_.end());
    for (const auto& p : found) {
      if (s.allowed.count(p.name) || placeholders_.count(p.name)) continue;
      fail_offset(
          in_string("/kernel_name", p.offset),
          fmt::format("kernel_name: unknown placeholder {{{}}}{}: not a parameter, a derived "
                      "value, a context name or a string placeholder ({})",
                      p.name, suggestion(p.name, known),
                      join({placeholders_.begin(), placeholders_.end()})));
    }
  }

  // A parameter that changes neither the kernel's template arguments nor its launch only
  // multiplies the sweep by identical candidates: almost always a typo or a forgotten {NAME}.
  void check_parameters_have_effect(const SweepConfig& c) const {
    std::set<std::string> used;
    for (const auto& p : find_placeholders(c.kernel_name)) used.insert(p.name);
    for (const Expr* e : {&c.grid[0], &c.grid[1], &c.grid[2], &c.block[0], &c.block[1], &c.block[2],
                          &c.shared_bytes})
      for (const auto& n : e->names()) used.insert(n);
    for (const TensorMapExpr& t : c.tensor_maps)
      for (const Expr& e : t.box)
        for (const auto& n : e.names()) used.insert(n);
    // Derived values only refer to earlier ones, so one backwards pass closes the set.
    for (auto it = c.derived.rbegin(); it != c.derived.rend(); ++it)
      if (used.count(it->first))
        for (const auto& n : it->second.names()) used.insert(n);
    for (const auto& [name, values] : c.parameters)
      if (!used.count(name))
        fail_key(pointer_child("/parameters", name),
                 fmt::format("parameter {} has no effect: it appears neither in kernel_name nor in "
                             "the launch expressions (directly or through a derived value)",
                             name));
  }

  void parse_problems(SweepConfig& c) const {
    if (!doc_.contains("problems")) return;
    const Json& list = get_typed("/problems", Json::value_t::array, "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string pointer = pointer_child("/problems", i);
      if (!list[i].is_object() || list[i].empty())
        fail(pointer, fmt::format("problem {} must be an object of dimensions such as "
                                  "{{\"M\": 4096, \"N\": 4096, \"K\": 4096}}, not {}",
                                  i + 1, list[i].dump()));
      Bindings dims;
      for (const auto& [key, value] : list[i].items()) {
        std::string dim_pointer = pointer_child(pointer, key);
        if (!context_.count(key))
          fail_key(
              dim_pointer,
              fmt::format("problem {}: \"{}\" is not a dimension the family knows{}; known: {}",
                          i + 1, key, suggestion(key, context_list()), join(context_list())));
        int64_t v = get_int(dim_pointer, fmt::format("problem {} {}", i + 1, key));
        if (v <= 0)
          fail(dim_pointer, fmt::format("problem {}: {} = {} must be positive", i + 1, key, v));
        dims[key] = v;
      }
      c.problems.push_back(std::move(dims));
    }
  }

  template <size_t N>
  std::vector<std::string> parse_choices(const char* key,
                                         const std::string_view (&known)[N]) const {
    if (!doc_.contains(key)) return {};
    return parse_strings(pointer_child("", key), key,
                         std::vector<std::string>(std::begin(known), std::end(known)));
  }

  // A list of distinct strings at `pointer`; each one of `known` unless that is empty.
  std::vector<std::string> parse_strings(const std::string& pointer, const std::string& what,
                                         const std::vector<std::string>& known) const {
    std::vector<std::string> out;
    const Json& list = get_typed(pointer, Json::value_t::array, "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string element = pointer_child(pointer, i);
      if (!list[i].is_string())
        fail(element, fmt::format("{}: {} is not a string", what, list[i].dump()));
      std::string s = list[i].get<std::string>();
      if (!known.empty() && std::find(known.begin(), known.end(), s) == known.end())
        fail(element, fmt::format("{}: unknown \"{}\"{}; known: {}", what, s,
                                  suggestion(s, known), join(known)));
      if (std::find(out.begin(), out.end(), s) != out.end())
        fail(element, fmt::format("{}: \"{}\" is listed twice", what, s));
      out.push_back(s);
    }
    return out;
  }

  // "options": {NAME: [VALUE, ...]}. Which names and values a family takes is its schema's
  // business, checked when problems are made from them; here only the form is.
  void parse_options(SweepConfig& c) const {
    if (doc_.contains("options")) {
      const Json& object = get_typed("/options", Json::value_t::object, "an object");
      for (const auto& [name, values] : object.items()) {
        if (!is_identifier(name)) fail_key(pointer_child("/options", name), fmt::format("option \"{}\" is not a name", name));
        c.options.emplace_back(name, parse_strings(pointer_child("/options", name), "options." + name, {}));
      }
    }
    if (doc_.contains("layouts")) {
      if (doc_.contains("options") && doc_["options"].contains("layout"))
        fail_key("/layouts", "\"layouts\" and \"options\": {\"layout\"} say the same thing; keep one");
      c.options.emplace_back("layout", parse_strings("/layouts", "layouts", {"rr", "rc", "cr", "cc"}));
    }
  }

  std::string_view text_;
  const std::string& origin_;
  std::set<std::string> context_, placeholders_;
  std::vector<std::string> tensor_map_operands_;
  Json doc_;
  std::optional<JsonPositions> positions_;
  std::vector<std::string> derived_names_;  // file order, known before their expressions are read
};

}  // namespace

std::vector<Placeholder> find_placeholders(std::string_view tmpl) {
  std::vector<Placeholder> out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '}') throw SyntaxError(static_cast<int>(i) + 1, "'}' without a matching '{'");
    if (tmpl[i] != '{') continue;
    size_t close = tmpl.find_first_of("{}", i + 1);
    if (close == std::string_view::npos || tmpl[close] != '}')
      throw SyntaxError(static_cast<int>(i) + 1, "'{' without a matching '}'");
    std::string_view name = tmpl.substr(i + 1, close - i - 1);
    if (!is_identifier(name))
      throw SyntaxError(
          static_cast<int>(i) + 1,
          fmt::format("placeholder {{{}}} is not {{NAME}} with NAME an identifier", name));
    out.push_back({std::string(name), i});
    i = close;
  }
  return out;
}

SweepConfig parse_sweep_config(std::string_view text, const std::string& origin,
                               const std::vector<std::string>& context_names,
                               const std::vector<std::string>& placeholder_names,
                               const std::vector<std::string>& tensor_map_operands) {
  SweepConfig config =
      ConfigParser(text, origin, context_names, placeholder_names, tensor_map_operands).parse();
  config.text = std::string(text);
  return config;
}

SweepConfig load_sweep_config(const std::filesystem::path& file,
                              const std::vector<std::string>& context_names,
                              const std::vector<std::string>& placeholder_names,
                              const std::vector<std::string>& tensor_map_operands) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ConfigError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw ConfigError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
  SweepConfig config =
      parse_sweep_config(text.str(), file.string(), context_names, placeholder_names, tensor_map_operands);
  // Absolute, so that a bare "my_sweep.json" in the current directory still has a folder its
  // kernel is looked up in (its parent_path() is empty, which means "embedded").
  config.base_dir = std::filesystem::absolute(file).parent_path();
  return config;
}

}  // namespace ktune
