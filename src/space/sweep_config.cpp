// Loading and checking sweep configs, read through space/json_document.hpp so that every error
// says file:line:col, down to the character inside an expression string.
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

#include "core/element.hpp"
#include "space/json_document.hpp"
#include "util/error.hpp"

namespace ktune {

namespace {

// ---- the checker ---------------------------------------------------------------------------

// Which names an expression may use, and how to explain a name it may not.
struct Scope {
  std::set<std::string> allowed;
  std::set<std::string> later_derived;  // derived further down the file: a distinct message
  std::vector<std::string> all_known;   // for "did you mean"
};

class ConfigParser : JsonDocument {
 public:
  ConfigParser(std::string_view text, const std::string& origin,
               const std::vector<std::string>& context_names,
               const std::vector<std::string>& placeholder_names,
               const std::vector<std::string>& tensor_map_operands, const std::vector<std::string>& dimension_names)
      : JsonDocument(text, origin),
        dimensions_(dimension_names),
        context_(context_names.begin(), context_names.end()),
        placeholders_(placeholder_names.begin(), placeholder_names.end()),
        tensor_map_operands_(tensor_map_operands) {}

  SweepConfig parse() {
    if (!root().is_object())
      fail("", fmt::format("a sweep config is a JSON object, not {}", root().type_name()));
    check_keys("",
               {"name", "family", "description", "notes", "kernel", "kernel_name", "min_arch", "max_arch",
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
    c.family_where = where("/family");
    if (root().contains("description")) c.description = get_string("/description", true);
    c.kernel_path = get_string("/kernel", false);
    c.kernel_where = where("/kernel");
    c.kernel_name = get_string("/kernel_name", false);
    for (const char* key : {"min_arch", "max_arch"}) {
      if (!root().contains(key)) continue;
      const std::string pointer = fmt::format("/{}", key);
      int64_t arch = get_int(pointer, key);
      if (arch < 0 || arch > 10000)
        fail(pointer, fmt::format("{} {} is not an SM version such as 80 or 90", key, arch));
      (std::string_view(key) == "min_arch" ? c.min_arch : c.max_arch) = static_cast<int>(arch);
    }
    if (c.max_arch != 0 && c.max_arch < c.min_arch)
      fail("/max_arch", fmt::format("max_arch {} is below min_arch {}", c.max_arch, c.min_arch));
    parse_parameters(c);
    parse_derived(c);
    parse_constraints(c);
    if (root().contains("estimate")) c.estimate = get_expr("/estimate", "estimate", scope(c, derived_names_.size()));
    parse_exchanges(c);
    parse_launch(c);
    parse_tensor_maps(c);
    check_kernel_name(c);
    check_parameters_have_effect(c);
    parse_problems(c);
    if (root().contains("dtypes")) c.dtypes = parse_strings("/dtypes", "dtypes", element_names());
    parse_options(c);
    return c;
  }

 private:
  // -- expressions --

  // An expression field: a string (parsed) or an integer (a constant). `what` names it in messages.
  Expr get_expr(const std::string& pointer, const std::string& what, const Scope& scope) const {
    Expr e = get_expr_syntax(pointer, what);
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
                      what, use.name, suggestion(use.name, scope.all_known), join_names(context_list())));
    }
    return e;
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
    if (!root().contains("derived")) return;
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
    if (!root().contains("constraints")) return;
    const Json& list = get_typed("/constraints", Json::value_t::array, "a list");
    Scope s = scope(c, derived_names_.size());
    for (size_t i = 0; i < list.size(); ++i)
      c.constraints.push_back(
          get_expr(pointer_child("/constraints", i), fmt::format("constraint {}", i + 1), s));
  }

  void parse_exchanges(SweepConfig& c) const {
    if (!root().contains("exchanges")) return;
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
    check_keys("/launch", {"grid", "block", "shared_bytes"}, {"grid", "block"});
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
    if (!root().contains("tensor_maps")) return;
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
      check_keys(pointer, {"box", "swizzle"}, {"box"});
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
                      join_names({placeholders_.begin(), placeholders_.end()})));
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
    if (!root().contains("problems")) return;
    const Json& list = get_typed("/problems", Json::value_t::array, "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      std::string pointer = pointer_child("/problems", i);
      if (!list[i].is_object() || list[i].empty())
        fail(pointer, fmt::format("problem {} must be an object of dimensions such as "
                                  "{{\"M\": 4096, \"N\": 4096, \"K\": 4096}}, not {}",
                                  i + 1, list[i].dump()));
      Bindings dims;
      const std::vector<std::string> known = dimensions_.empty() ? context_list() : dimensions_;
      for (const auto& [key, value] : list[i].items()) {
        std::string dim_pointer = pointer_child(pointer, key);
        if (std::find(known.begin(), known.end(), key) == known.end())
          fail_key(dim_pointer, fmt::format("problem {}: \"{}\" is not a dimension the family knows{}; its dimensions: {}",
                                            i + 1, key, suggestion(key, known), join_names(known)));
        int64_t v = get_int(dim_pointer, fmt::format("problem {} {}", i + 1, key));
        if (v <= 0)
          fail(dim_pointer, fmt::format("problem {}: {} = {} must be positive", i + 1, key, v));
        dims[key] = v;
      }
      c.problems.push_back(std::move(dims));
    }
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
                                  suggestion(s, known), join_names(known)));
      if (std::find(out.begin(), out.end(), s) != out.end())
        fail(element, fmt::format("{}: \"{}\" is listed twice", what, s));
      out.push_back(s);
    }
    return out;
  }

  // "options": {NAME: [VALUE, ...]}. Which names and values a family takes is its schema's
  // business, checked when problems are made from them; here only the form is.
  void parse_options(SweepConfig& c) const {
    if (root().contains("options")) {
      const Json& object = get_typed("/options", Json::value_t::object, "an object");
      for (const auto& [name, values] : object.items()) {
        if (!is_identifier(name)) fail_key(pointer_child("/options", name), fmt::format("option \"{}\" is not a name", name));
        c.options.emplace_back(name, parse_strings(pointer_child("/options", name), "options." + name, {}));
      }
    }
    if (root().contains("layouts")) {
      if (root().contains("options") && root()["options"].contains("layout"))
        fail_key("/layouts", "\"layouts\" and \"options\": {\"layout\"} say the same thing; keep one");
      c.options.emplace_back("layout", parse_strings("/layouts", "layouts", {"rr", "rc", "cr", "cc"}));
    }
  }

  std::vector<std::string> dimensions_;
  std::set<std::string> context_, placeholders_;
  std::vector<std::string> tensor_map_operands_;
  std::vector<std::string> derived_names_;  // file order, known before their expressions are read
};

}  // namespace

bool SweepConfig::maps_operand(std::string_view operand) const {
  return std::any_of(tensor_maps.begin(), tensor_maps.end(),
                     [&](const TensorMapExpr& m) { return m.operand == operand; });
}

std::string arch_mismatch(const SweepConfig& config, int arch) {
  if (arch < config.min_arch) return fmt::format("needs sm_{} or newer", config.min_arch);
  if (config.max_arch != 0 && arch > config.max_arch)
    return config.min_arch == config.max_arch
               ? fmt::format("runs on sm_{} only (instructions later SMs lack)", config.max_arch)
               : fmt::format("runs on sm_{} to sm_{} only (instructions later SMs lack)", config.min_arch,
                             config.max_arch);
  return "";
}

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
                               const std::vector<std::string>& tensor_map_operands,
                               const std::vector<std::string>& dimension_names) {
  SweepConfig config =
      ConfigParser(text, origin, context_names, placeholder_names, tensor_map_operands, dimension_names).parse();
  config.text = std::string(text);
  return config;
}

SweepConfig load_sweep_config(const std::filesystem::path& file,
                              const std::vector<std::string>& context_names,
                              const std::vector<std::string>& placeholder_names,
                              const std::vector<std::string>& tensor_map_operands,
                              const std::vector<std::string>& dimension_names) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw ConfigError(fmt::format("{}: cannot open: {}", file.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad())
    throw ConfigError(fmt::format("{}: cannot read: {}", file.string(), std::strerror(errno)));
  SweepConfig config =
      parse_sweep_config(text.str(), file.string(), context_names, placeholder_names, tensor_map_operands,
                         dimension_names);
  // Absolute, so that a bare "my_sweep.json" in the current directory still has a folder its
  // kernel is looked up in (its parent_path() is empty, which means "embedded").
  config.base_dir = std::filesystem::absolute(file).parent_path();
  return config;
}

}  // namespace ktune
