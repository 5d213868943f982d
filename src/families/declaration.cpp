// Reading a family declaration: every key checked, every expression's names resolved against the
// dimensions, every argument against the buffers, each error at its file:line:col.
#include "families/declaration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "space/json_document.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

const std::vector<std::string> kScalarTypes = {"int32", "int64", "uint32", "uint64", "float", "double"};

std::string scalar_cpp(const std::string& type) {
  if (type == "int32") return "int";
  if (type == "int64") return "long long";
  if (type == "uint32") return "unsigned int";
  if (type == "uint64") return "unsigned long long";
  return type;  // float, double
}

bool integer_scalar(const std::string& type) { return type != "float" && type != "double"; }

class DeclarationParser : JsonDocument {
 public:
  DeclarationParser(std::string_view text, const std::string& origin, std::filesystem::path folder)
      : JsonDocument(text, origin), folder_(std::move(folder)) {}

  Declaration parse() {
    if (!root().is_object()) fail("", fmt::format("a family declaration is a JSON object, not {}", root().type_name()));
    check_keys("",
               {"family", "summary", "description", "dims", "dtypes", "options", "constraints", "buffers", "arguments",
                "cost", "tolerance", "reference", "baseline", "configs"},
               {"family", "summary", "dims", "dtypes", "buffers", "arguments", "cost", "reference"});
    Declaration d;
    d.text = text();
    d.name = get_string("/family", false);
    if (!is_identifier(d.name))
      fail("/family", fmt::format("family name \"{}\" is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", d.name));
    d.summary = get_string("/summary", false);
    parse_dims(d);
    parse_dtypes(d);
    parse_options(d);
    parse_constraints(d);
    parse_buffers(d);
    d.arguments = parse_arguments("/arguments", d);
    for (const BufferDecl& b : d.buffers)
      if (std::none_of(d.arguments.begin(), d.arguments.end(), [&](const ArgumentDecl& a) { return a.buffer == b.name; }))
        fail(buffer_pointer(d, b.name), fmt::format("buffer \"{}\" is never passed to the kernel (\"arguments\")", b.name));
    parse_cost(d);
    if (has("/tolerance")) d.tolerance = parse_tolerance("/tolerance", d, /*by_dtype_only=*/true);
    d.reference = parse_call("/reference", d, /*baseline=*/false);
    if (has("/reference/outputs")) {
      const std::string outputs = get_string("/reference/outputs", false);
      if (outputs != "fp32" && outputs != "own")
        fail("/reference/outputs", fmt::format("reference outputs \"{}\" is not \"fp32\" or \"own\"", outputs));
      d.reference_in_fp32 = outputs == "fp32";
    }
    if (has("/baseline")) d.baseline = parse_call("/baseline", d, /*baseline=*/true);
    if (has("/configs")) {
      const Json& list = get_typed("/configs", Json::value_t::array, "a list");
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string pointer = pointer_child("/configs", i);
        d.configs.push_back(existing_file(pointer, get_string(pointer, false)).string());
      }
    }
    return d;
  }

 private:
  // -- names --

  std::set<std::string> dim_names(const Declaration& d) const {
    std::set<std::string> names;
    for (const auto& dim : d.dims) names.insert(dim.name);
    return names;
  }

  Expr dim_expr(const std::string& pointer, const std::string& what, const Declaration& d) const {
    Expr e = get_expr_syntax(pointer, what);
    const std::set<std::string> names = dim_names(d);
    check_names(e, pointer, what, names, {names.begin(), names.end()});
    return e;
  }

  std::string buffer_pointer(const Declaration& d, const std::string& name) const {
    for (size_t i = 0; i < d.buffers.size(); ++i)
      if (d.buffers[i].name == name) return pointer_child(pointer_child("/buffers", i), "name");
    return "/buffers";
  }

  void check_unique(const std::string& pointer, const std::string& name, std::set<std::string>& seen,
                    const char* what) const {
    if (!is_identifier(name))
      fail(pointer, fmt::format("{} name \"{}\" is not an identifier ([A-Za-z_][A-Za-z0-9_]*)", what, name));
    if (!seen.insert(name).second) fail(pointer, fmt::format("\"{}\" is declared twice", name));
  }

  std::filesystem::path existing_file(const std::string& pointer, const std::string& file) const {
    std::filesystem::path p = folder_ / file;
    if (!std::filesystem::is_regular_file(p))
      fail(pointer, fmt::format("no such file: {} (paths are relative to the declaration's folder, {})", file,
                                folder_.string()));
    return std::filesystem::absolute(p);
  }

  // -- sections --

  void parse_dims(Declaration& d) {
    const Json& list = get_typed("/dims", Json::value_t::array, "a list");
    if (list.empty()) fail("/dims", "\"dims\" must name at least one dimension");
    std::set<std::string> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string pointer = pointer_child("/dims", i);
      get_typed(pointer, Json::value_t::object, "an object such as {\"name\": \"rows\", \"help\": \"...\"}");
      check_keys(pointer, {"name", "help", "default"}, {"name"});
      Declaration::Dim dim;
      dim.name = get_string(pointer_child(pointer, "name"), false);
      check_unique(pointer_child(pointer, "name"), dim.name, seen, "dimension");
      if (has(pointer_child(pointer, "help"))) dim.help = get_string(pointer_child(pointer, "help"), true);
      if (has(pointer_child(pointer, "default"))) dim.defaults_to = get_string(pointer_child(pointer, "default"), false);
      d.dims.push_back(std::move(dim));
    }
    for (size_t i = 0; i < d.dims.size(); ++i) {
      const std::string& to = d.dims[i].defaults_to;
      if (to.empty()) continue;
      const std::string pointer = pointer_child(pointer_child("/dims", i), "default");
      if (!seen.count(to) || to == d.dims[i].name)
        fail(pointer, fmt::format("dimension {} defaults to \"{}\", which is not another dimension{}", d.dims[i].name,
                                  to, suggestion(to, {seen.begin(), seen.end()})));
      for (const auto& other : d.dims)
        if (other.name == to && !other.defaults_to.empty())
          fail(pointer, fmt::format("dimension {} defaults to {}, which itself defaults to {}: name one that is given",
                                    d.dims[i].name, to, other.defaults_to));
    }
  }

  void parse_dtypes(Declaration& d) {
    const Json& object = get_typed("/dtypes", Json::value_t::object, "an object such as {\"bf16\": \"__nv_bfloat16\"}");
    if (object.empty()) fail("/dtypes", "\"dtypes\" must name at least one dtype");
    for (const auto& [name, cpp] : object.items()) {
      const std::string pointer = pointer_child("/dtypes", name);
      const ElementType* e = find_element(name);
      if (!e)
        fail_key(pointer, fmt::format("unknown dtype \"{}\"{}; known: {}", name, suggestion(name, element_names()),
                                      join_names(element_names())));
      const std::string type = get_string(pointer, false);
      d.dtypes.emplace_back(std::string(e->name), type);
    }
  }

  void parse_options(Declaration& d) {
    if (!has("/options")) return;
    const Json& list = get_typed("/options", Json::value_t::array, "a list");
    std::set<std::string> seen;
    for (const auto& dim : d.dims) seen.insert(dim.name);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string pointer = pointer_child("/options", i);
      get_typed(pointer, Json::value_t::object, "an object such as {\"name\": \"style\", \"choices\": [...]}");
      check_keys(pointer, {"name", "help", "choices", "default"}, {"name", "choices"});
      Declaration::Option o;
      o.name = get_string(pointer_child(pointer, "name"), false);
      check_unique(pointer_child(pointer, "name"), o.name, seen, "option");
      if (has(pointer_child(pointer, "help"))) o.help = get_string(pointer_child(pointer, "help"), true);
      const std::string choices = pointer_child(pointer, "choices");
      const Json& values = get_typed(choices, Json::value_t::array, "a list of strings");
      if (values.empty()) fail(choices, "an option needs at least one choice");
      for (size_t j = 0; j < values.size(); ++j) o.choices.push_back(get_string(pointer_child(choices, j), false));
      o.default_value = o.choices.front();
      if (has(pointer_child(pointer, "default"))) {
        o.default_value = get_string(pointer_child(pointer, "default"), false);
        if (std::find(o.choices.begin(), o.choices.end(), o.default_value) == o.choices.end())
          fail(pointer_child(pointer, "default"),
               fmt::format("default \"{}\" is not one of the choices ({})", o.default_value, join_names(o.choices)));
      }
      d.options.push_back(std::move(o));
    }
  }

  void parse_constraints(Declaration& d) {
    if (!has("/constraints")) return;
    const Json& list = get_typed("/constraints", Json::value_t::array, "a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string pointer = pointer_child("/constraints", i);
      d.constraints.emplace_back(get_string(pointer, false), dim_expr(pointer, fmt::format("constraint {}", i + 1), d));
    }
  }

  BufferInit parse_init(const std::string& pointer, const ElementType& type) const {
    // (the declaration so far, for bounds given as expressions of its dimensions)
    BufferInit init;
    const Json& j = at(pointer);
    std::string dist;
    if (j.is_string()) {
      dist = j.get<std::string>();
    } else if (j.is_object()) {
      check_keys(pointer, {"dist", "mean", "std", "low", "high", "start", "step"}, {"dist"});
      dist = get_string(pointer_child(pointer, "dist"), false);
    } else {
      fail(pointer, fmt::format("init is a distribution's name (\"normal\") or an object ({{\"dist\": \"uniform\", "
                                "\"low\": -1, \"high\": 1}}), not {}",
                                j.dump()));
    }
    auto number = [&](const char* key, double fallback) {
      const std::string p = pointer_child(pointer, key);
      return j.is_object() && has(p) ? get_number(p, std::string("init.") + key) : fallback;
    };
    auto allow_only = [&](std::vector<std::string> keys) {
      if (!j.is_object()) return;
      keys.push_back("dist");
      for (const auto& [key, value] : j.items())
        if (std::find(keys.begin(), keys.end(), key) == keys.end())
          fail_key(pointer_child(pointer, key), fmt::format("init \"{}\" takes no \"{}\" (it takes {})", dist, key,
                                                            keys.size() > 1 ? join_names({keys.begin(), keys.end() - 1})
                                                                            : "nothing more"));
    };
    const std::string dist_pointer = j.is_object() ? pointer_child(pointer, "dist") : pointer;
    if (dist == "normal") {
      allow_only({"mean", "std"});
      init.kind = BufferInit::Kind::normal, init.a = number("mean", 0), init.b = number("std", 1);
      if (!type.is_float) fail(dist_pointer, fmt::format("a {} buffer cannot hold normal values; use \"integers\"", type.name));
      if (!(init.b > 0)) fail(pointer, "init.std must be positive");
    } else if (dist == "uniform") {
      allow_only({"low", "high"});
      init.kind = BufferInit::Kind::uniform, init.a = number("low", -1), init.b = number("high", 1);
      if (!type.is_float) fail(dist_pointer, fmt::format("a {} buffer cannot hold uniform reals; use \"integers\"", type.name));
      if (!(init.a < init.b)) fail(pointer, "init.low must be below init.high");
    } else if (dist == "integers") {
      allow_only({"low", "high"});
      if (!j.is_object() || !has(pointer_child(pointer, "low")) || !has(pointer_child(pointer, "high")))
        fail(pointer, "init \"integers\" needs \"low\" and \"high\" (both included)");
      init.kind = BufferInit::Kind::integers;
      // Each bound a number or an expression of the dimensions ("bins - 1").
      for (const char* key : {"low", "high"}) {
        const std::string p = pointer_child(pointer, key);
        const bool low = std::string_view(key) == "low";
        if (at(p).is_string())
          (low ? init.a_expr : init.b_expr) = dim_expr(p, std::string("init.") + key, *declaration_);
        else
          (low ? init.a : init.b) = get_number(p, std::string("init.") + key);
      }
      if (init.a != std::floor(init.a) || init.b != std::floor(init.b) || (!init.a_expr && !init.b_expr && init.a > init.b))
        fail(pointer, "init.low and init.high are integers with low <= high");
    } else if (dist == "ones" || dist == "zeros") {
      allow_only({});
      init.kind = dist == "ones" ? BufferInit::Kind::ones : BufferInit::Kind::zeros;
    } else if (dist == "iota") {
      allow_only({"start", "step"});
      init.kind = BufferInit::Kind::iota, init.a = number("start", 0), init.b = number("step", 1);
    } else {
      const std::vector<std::string> known = {"normal", "uniform", "integers", "ones", "zeros", "iota"};
      fail(dist_pointer, fmt::format("unknown init \"{}\"{}; known: {}", dist, suggestion(dist, known), join_names(known)));
    }
    return init;
  }

  void parse_buffers(Declaration& d) {
    declaration_ = &d;
    const Json& list = get_typed("/buffers", Json::value_t::array, "a list");
    if (list.empty()) fail("/buffers", "\"buffers\" must declare at least one buffer");
    std::set<std::string> seen = dim_names(d);
    bool any_output = false;
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string pointer = pointer_child("/buffers", i);
      get_typed(pointer, Json::value_t::object, "an object such as {\"name\": \"x\", \"type\": \"dtype\", ...}");
      check_keys(pointer, {"name", "type", "count", "role", "init", "zeroed", "tolerance"},
                 {"name", "type", "count", "role"});
      BufferDecl b;
      b.name = get_string(pointer_child(pointer, "name"), false);
      check_unique(pointer_child(pointer, "name"), b.name, seen, "buffer");
      b.type = get_string(pointer_child(pointer, "type"), false);
      std::vector<std::string> types = element_names();
      types.insert(types.begin(), "dtype");
      if (b.type != "dtype") {
        const ElementType* e = find_element(b.type);
        if (!e)
          fail(pointer_child(pointer, "type"), fmt::format("unknown buffer type \"{}\"{}; known: {}", b.type,
                                                           suggestion(b.type, types), join_names(types)));
        b.type = std::string(e->name);
      }
      b.count = dim_expr(pointer_child(pointer, "count"), fmt::format("buffer {} count", b.name), d);
      const std::string role = get_string(pointer_child(pointer, "role"), false);
      const std::vector<std::string> roles = {"input", "output", "inout", "scratch"};
      if (role == "input") b.use = BufferUse::input;
      else if (role == "output") b.use = BufferUse::output;
      else if (role == "inout") b.use = BufferUse::inout;
      else if (role == "scratch") b.use = BufferUse::scratch;
      else
        fail(pointer_child(pointer, "role"),
             fmt::format("unknown role \"{}\"{}; known: {}", role, suggestion(role, roles), join_names(roles)));
      any_output = any_output || b.use == BufferUse::output || b.use == BufferUse::inout;
      const bool filled = b.use == BufferUse::input || b.use == BufferUse::inout;
      if (has(pointer_child(pointer, "init"))) {
        if (!filled) fail_key(pointer_child(pointer, "init"), fmt::format("only input and inout buffers have an init ({} is {})", b.name, role));
        // A "dtype" buffer must take every dtype the family has: check the init against each.
        for (const ElementType* e : element_types_of(d, b)) b.init = parse_init(pointer_child(pointer, "init"), *e);
      } else if (filled) {
        for (const ElementType* e : element_types_of(d, b))
          if (!e->is_float) fail(pointer, fmt::format("integer buffer {} needs an \"init\" such as {{\"dist\": \"integers\", \"low\": 0, \"high\": 100}}", b.name));
      }
      if (has(pointer_child(pointer, "zeroed"))) {
        const Json& z = at(pointer_child(pointer, "zeroed"));
        if (!z.is_boolean()) fail(pointer_child(pointer, "zeroed"), "\"zeroed\" is true or false");
        if (b.use != BufferUse::output)
          fail_key(pointer_child(pointer, "zeroed"), "only outputs take \"zeroed\" (scratch is always zeroed)");
        b.zeroed = z.get<bool>();
      }
      if (has(pointer_child(pointer, "tolerance"))) {
        if (b.use != BufferUse::output && b.use != BufferUse::inout)
          fail_key(pointer_child(pointer, "tolerance"), "only outputs have a tolerance");
        b.tolerance = parse_tolerance(pointer_child(pointer, "tolerance"), d, /*by_dtype_only=*/false);
      }
      d.buffers.push_back(std::move(b));
    }
    if (!any_output) fail("/buffers", "no buffer has role \"output\" or \"inout\": nothing would be checked");
  }

  std::vector<const ElementType*> element_types_of(const Declaration& d, const BufferDecl& b) const {
    std::vector<const ElementType*> out;
    if (b.type != "dtype") return {find_element(b.type)};
    for (const auto& [name, cpp] : d.dtypes) out.push_back(find_element(name));
    return out;
  }

  // {"atol": a, "rtol": r, "norm": n} for every dtype, or such objects by dtype name.
  std::map<std::string, Tolerance> parse_tolerance(const std::string& pointer, const Declaration& d,
                                                   bool by_dtype_only) const {
    const Json& j = get_typed(pointer, Json::value_t::object, "an object");
    auto one = [&](const std::string& p) {
      check_keys(p, {"atol", "rtol", "norm"}, {});
      Tolerance t{-1, -1, -1};
      if (has(pointer_child(p, "atol"))) t.atol = get_number(pointer_child(p, "atol"), "atol");
      if (has(pointer_child(p, "rtol"))) t.rtol = get_number(pointer_child(p, "rtol"), "rtol");
      if (has(pointer_child(p, "norm"))) t.max_norm_rel = get_number(pointer_child(p, "norm"), "norm");
      for (double v : {t.atol, t.rtol, t.max_norm_rel})
        if (v < -1 || (v < 0 && v != -1)) fail(p, "tolerances are numbers >= 0");
      return t;  // -1: not given, the default stays
    };
    std::map<std::string, Tolerance> out;
    const bool flat = j.contains("atol") || j.contains("rtol") || j.contains("norm");
    if (flat && !by_dtype_only) {
      out[""] = one(pointer);
      return out;
    }
    for (const auto& [name, value] : j.items()) {
      const std::string p = pointer_child(pointer, name);
      if (std::none_of(d.dtypes.begin(), d.dtypes.end(), [&](const auto& dt) { return dt.first == name; }))
        fail_key(p, fmt::format("tolerance for \"{}\", which is not one of the family's dtypes{}", name,
                                by_dtype_only ? "" : " (or give atol, rtol, norm for all of them)"));
      get_typed(p, Json::value_t::object, "an object such as {\"atol\": 1e-3, \"rtol\": 1e-3, \"norm\": 5e-4}");
      out[name] = one(p);
    }
    return out;
  }

  // "x" (a buffer), "rows:int32" (a dimension passed as a scalar) or "n:int64=rows*cols",
  // "eps:float=1e-6" (a value of its own).
  std::vector<ArgumentDecl> parse_arguments(const std::string& pointer, const Declaration& d) const {
    const Json& list = get_typed(pointer, Json::value_t::array, "a list");
    if (list.empty()) fail(pointer, "a kernel takes at least one argument");
    std::vector<ArgumentDecl> out;
    std::set<std::string> seen;
    const std::set<std::string> dims = dim_names(d);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = pointer_child(pointer, i);
      const std::string text = get_string(p, false);
      const size_t colon = text.find(':'), equals = text.find('=');
      ArgumentDecl a;
      a.name = text.substr(0, std::min(colon, equals));
      if (!is_identifier(a.name)) fail(p, fmt::format("argument \"{}\" is not NAME, NAME:TYPE or NAME:TYPE=VALUE", text));
      if (!seen.insert(a.name).second) fail(p, fmt::format("argument {} is passed twice", a.name));
      const bool is_buffer = std::any_of(d.buffers.begin(), d.buffers.end(), [&](const BufferDecl& b) { return b.name == a.name; });
      if (is_buffer) {
        if (colon != std::string::npos || equals != std::string::npos)
          fail(p, fmt::format("{} is a buffer: name it alone (its type is the buffer's)", a.name));
        a.buffer = a.name;
        out.push_back(std::move(a));
        continue;
      }
      if (colon == std::string::npos || colon > equals) {
        std::vector<std::string> known;
        for (const BufferDecl& b : d.buffers) known.push_back(b.name);
        known.insert(known.end(), dims.begin(), dims.end());
        fail(p, fmt::format("argument \"{}\" names no buffer{}; a dimension or value is passed as NAME:TYPE or "
                            "NAME:TYPE=VALUE (types: {})",
                            a.name, suggestion(a.name, known), join_names(kScalarTypes)));
      }
      a.scalar_type = text.substr(colon + 1, equals == std::string::npos ? std::string::npos : equals - colon - 1);
      if (std::find(kScalarTypes.begin(), kScalarTypes.end(), a.scalar_type) == kScalarTypes.end())
        fail_offset(in_string(p, colon + 1), fmt::format("unknown scalar type \"{}\"{}; known: {}", a.scalar_type,
                                                         suggestion(a.scalar_type, kScalarTypes),
                                                         join_names(kScalarTypes)));
      if (equals == std::string::npos) {
        if (!dims.count(a.name))
          fail(p, fmt::format("{} is no dimension: give its value, {}:{}=EXPRESSION", a.name, a.name, a.scalar_type));
        a.int_value = Expr::parse(a.name);
      } else {
        const std::string value = text.substr(equals + 1);
        if (dims.count(a.name)) fail(p, fmt::format("{} is a dimension: pass it as {}:{} without a value", a.name, a.name, a.scalar_type));
        if (!integer_scalar(a.scalar_type)) {
          char* end = nullptr;
          const double v = std::strtod(value.c_str(), &end);
          if (end != value.c_str() && *end == '\0') {
            a.real_value = v;
            out.push_back(std::move(a));
            continue;
          }
        }
        Expr e;
        try {
          e = Expr::parse(value);
        } catch (const SyntaxError& err) {
          fail_offset(in_string(p, equals + err.column()), fmt::format("argument {}: {}{}", a.name, err.message(),
                                                                       integer_scalar(a.scalar_type) ? "" : " (a float is a number, or an integer expression)"));
        }
        for (const auto& use : e.name_uses())
          if (!dims.count(use.name))
            fail_offset(in_string(p, equals + use.column),
                        fmt::format("argument {} uses unknown name \"{}\"{} (dimensions: {})", a.name, use.name,
                                    suggestion(use.name, {dims.begin(), dims.end()}), join_names({dims.begin(), dims.end()})));
        a.int_value = e;
      }
      out.push_back(std::move(a));
    }
    return out;
  }

  void parse_cost(Declaration& d) {
    get_typed("/cost", Json::value_t::object, "an object such as {\"bound\": \"memory\"}");
    check_keys("/cost", {"bound", "flops", "bytes"}, {"bound"});
    const std::string bound = get_string("/cost/bound", false);
    if (bound != "memory" && bound != "compute")
      fail("/cost/bound", fmt::format("bound \"{}\" is \"memory\" or \"compute\"", bound));
    d.memory_bound = bound == "memory";
    if (has("/cost/flops")) d.flops = dim_expr("/cost/flops", "cost.flops", d);
    if (has("/cost/bytes")) d.bytes = dim_expr("/cost/bytes", "cost.bytes", d);
    if (!d.memory_bound && !d.flops) fail("/cost", "a compute-bound family says its \"flops\"");
  }

  KernelCallDecl parse_call(const std::string& pointer, const Declaration& d, bool baseline) const {
    get_typed(pointer, Json::value_t::object, "an object");
    if (baseline)
      check_keys(pointer, {"name", "kernel", "kernel_name", "launch", "arguments"}, {"name", "kernel", "kernel_name", "launch"});
    else
      check_keys(pointer, {"kernel", "kernel_name", "launch", "arguments", "outputs"}, {"kernel", "kernel_name", "launch"});
    KernelCallDecl c;
    c.location = where(pointer_child(pointer, "kernel"));
    if (baseline) c.label = get_string(pointer_child(pointer, "name"), false);
    c.file = get_string(pointer_child(pointer, "kernel"), false);
    c.path = existing_file(pointer_child(pointer, "kernel"), c.file);
    c.text = read_file(c.path);
    const std::string name_pointer = pointer_child(pointer, "kernel_name");
    c.kernel_name = get_string(name_pointer, false);
    std::vector<Placeholder> found;
    try {
      found = find_placeholders(c.kernel_name);
    } catch (const SyntaxError& err) {
      fail_offset(in_string(name_pointer, err.column() - 1), "kernel_name: " + err.message());
    }
    std::vector<std::string> known = {"ELEMENT"};
    for (const auto& dim : d.dims) known.push_back(dim.name);
    for (const auto& o : d.options) known.push_back(o.name);
    for (const Placeholder& p : found)
      if (std::find(known.begin(), known.end(), p.name) == known.end())
        fail_offset(in_string(name_pointer, p.offset), fmt::format("kernel_name: unknown placeholder {{{}}}{} (known: {})",
                                                                   p.name, suggestion(p.name, known), join_names(known)));
    const std::string launch = pointer_child(pointer, "launch");
    get_typed(launch, Json::value_t::object, "an object such as {\"grid\": [...], \"block\": [...]}");
    check_keys(launch, {"grid", "block", "shared_bytes"}, {"grid", "block"});
    for (const char* key : {"grid", "block"}) {
      const std::string p = pointer_child(launch, key);
      if (!at(p).is_array() || at(p).size() != 3)
        fail(p, fmt::format("launch.{} must be a list of 3 expressions (x, y, z), not {}", key, at(p).dump()));
      Expr* out = std::string_view(key) == "grid" ? c.grid : c.block;
      for (size_t i = 0; i < 3; ++i) out[i] = dim_expr(pointer_child(p, i), fmt::format("launch.{}[{}]", key, i), d);
    }
    if (has(pointer_child(launch, "shared_bytes")))
      c.shared_bytes = dim_expr(pointer_child(launch, "shared_bytes"), "launch.shared_bytes", d);
    c.arguments = has(pointer_child(pointer, "arguments")) ? parse_arguments(pointer_child(pointer, "arguments"), d)
                                                           : d.arguments;
    return c;
  }

  std::filesystem::path folder_;
  const Declaration* declaration_ = nullptr;  // while its buffers are read
};

}  // namespace

Declaration parse_declaration(std::string_view text, const std::string& origin, const std::filesystem::path& folder) {
  return DeclarationParser(text, origin, folder).parse();
}

Declaration load_declaration(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) throw ConfigError(fmt::format("{}: no such file", file.string()));
  Declaration d = parse_declaration(read_file(file), file.string(), std::filesystem::absolute(file).parent_path());
  d.file = std::filesystem::absolute(file);
  return d;
}

std::string argument_cpp_type(const Declaration& d, const ArgumentDecl& a, const std::string& dtype,
                              bool reference_outputs_fp32) {
  if (a.buffer.empty()) return scalar_cpp(a.scalar_type);
  const BufferDecl& b = *std::find_if(d.buffers.begin(), d.buffers.end(), [&](const BufferDecl& x) { return x.name == a.buffer; });
  const std::string element_name = b.type == "dtype" ? dtype : b.type;
  const ElementType& e = *find_element(element_name);
  std::string cpp = std::string(e.cpp);
  if (b.type == "dtype")
    for (const auto& [name, type] : d.dtypes)
      if (name == dtype) cpp = type;
  const bool written = b.use != BufferUse::input;
  if (reference_outputs_fp32 && e.is_float && (b.use == BufferUse::output || b.use == BufferUse::inout)) cpp = "float";
  return written ? cpp + "*" : "const " + cpp + "*";
}

}  // namespace ktune
