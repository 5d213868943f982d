// Enumeration of a sweep's candidates. Each candidate is evaluated in a fixed order, constraints
// (stopping at the first that fails, each after the derived values it uses) -> the remaining
// derived values -> kernel name -> launch, and any evaluation error becomes that candidate's
// invalid_reason rather than an exception. Most candidates of a large sweep fail an early
// constraint (gemm_wgmma: 46k of 46k+289 at 4096^3), so derived values are computed only as far
// as the constraints checked so far need them: a derived value may use only the ones before it,
// so that is a prefix of the list.
#include "space/enumerate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "util/error.hpp"

namespace ktune {

namespace {

// A guard, not a tuning knob: a Candidate costs about a kilobyte, so a million is already a
// gigabyte, and a sweep that large is a config mistake (a forgotten constraint cannot shrink
// the product: constraints are evaluated per candidate).
constexpr size_t max_candidates = 1'000'000;

// Every name the config's expressions and kernel_name need from outside (not a parameter or a
// derived value) must be in `context` or `placeholders`. Checked once, up front: a missing one
// is the caller's mistake and would otherwise mark every candidate invalid with the same reason.
void check_inputs(const SweepConfig& config, const Bindings& context,
                  const std::map<std::string, std::string>& placeholders) {
  std::set<std::string> provided;
  for (const auto& [name, values] : config.parameters) provided.insert(name);
  for (const auto& [name, expr] : config.derived) provided.insert(name);
  for (const auto& [name, value] : context) provided.insert(name);

  auto need = [&](const Expr& e, const std::string& where) {
    for (const auto& name : e.names())
      if (!provided.count(name))
        throw ConfigError(
            fmt::format("sweep {}: {} uses \"{}\", which the context does not provide", config.name,
                        where, name));
  };
  for (const auto& [name, expr] : config.derived) need(expr, "derived " + name);
  for (const auto& expr : config.constraints) need(expr, "constraint \"" + expr.text() + "\"");
  for (int i = 0; i < 3; ++i) {
    need(config.grid[i], fmt::format("launch.grid[{}]", i));
    need(config.block[i], fmt::format("launch.block[{}]", i));
  }
  need(config.shared_bytes, "launch.shared_bytes");
  if (config.estimate) need(*config.estimate, "estimate");
  for (const TensorMapExpr& t : config.tensor_maps)
    for (const Expr& e : t.box) need(e, "tensor_maps." + t.operand + ".box");
  for (const auto& p : find_placeholders(config.kernel_name))
    if (!provided.count(p.name) && !placeholders.count(p.name))
      throw ConfigError(
          fmt::format("sweep {}: kernel_name uses {{{}}}, which neither the context "
                      "nor the string placeholders provide",
                      config.name, p.name));
}

// How many of the config's derived values (a prefix) each constraint needs computed, and the
// kernel name.
struct DerivedPrefixes {
  std::vector<size_t> constraints;
  size_t kernel_name = 0;
  std::vector<Placeholder> name_parts;  // find_placeholders(config.kernel_name), parsed once
};
DerivedPrefixes derived_prefixes(const SweepConfig& config) {
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < config.derived.size(); ++i) position[config.derived[i].first] = i;
  auto need = [&](const std::string& name, size_t& prefix) {
    if (auto it = position.find(name); it != position.end()) prefix = std::max(prefix, it->second + 1);
  };
  DerivedPrefixes out;
  for (const auto& expr : config.constraints) {
    size_t prefix = 0;
    for (const auto& name : expr.names()) need(name, prefix);
    out.constraints.push_back(prefix);
  }
  out.name_parts = find_placeholders(config.kernel_name);
  for (const auto& p : out.name_parts) need(p.name, out.kernel_name);
  return out;
}

// substitute() with the template's placeholders already found.
std::string substitute_found(std::string_view tmpl, const std::vector<Placeholder>& found, const Bindings& bindings,
                             const std::map<std::string, std::string>& placeholders) {
  std::string out;
  size_t done = 0;
  for (const auto& p : found) {
    out.append(tmpl.substr(done, p.offset - done));
    if (auto it = placeholders.find(p.name); it != placeholders.end()) {
      out += it->second;
    } else if (auto b = bindings.find(p.name); b != bindings.end()) {
      out += std::to_string(b->second);
    } else {
      throw ConfigError(fmt::format("template \"{}\": nothing to put in {{{}}}", tmpl, p.name));
    }
    done = p.offset + p.name.size() + 2;
  }
  out.append(tmpl.substr(done));
  return out;
}

// An invalid candidate keeps its parameters, kernel name and reason; its bindings (the context
// and derived values, a few dozen map nodes) go at once: a large sweep holds tens of thousands.
Candidate invalid(Candidate c, std::string reason) {
  c.bindings.clear();
  c.valid = false;
  c.invalid_reason = std::move(reason);
  return c;
}

// Evaluates one assignment of the parameters. check_inputs has run, so an exception here can only
// come from arithmetic (division by zero, overflow): it is caught and becomes the reason.
// `prefixes`: derived_prefixes(config).
Candidate evaluate(const SweepConfig& config, const DerivedPrefixes& prefixes, const Bindings& params,
                   const Bindings& context, const std::map<std::string, std::string>& placeholders) {
  Candidate c;
  c.params = params;
  c.bindings = context;
  for (const auto& [name, value] : params) c.bindings[name] = value;

  size_t derived = 0;  // how many derived values are in c.bindings
  auto derive_up_to = [&](size_t end) -> bool {
    for (; derived < end; ++derived) {
      const auto& [name, expr] = config.derived[derived];
      try {
        c.bindings[name] = expr.eval(c.bindings);
      } catch (const ConfigError& e) {
        c = invalid(std::move(c), fmt::format("derived {}: {}", name, e.what()));
        return false;
      }
    }
    return true;
  };
  // Invalid candidates still carry their kernel name, for reports, when it can be made.
  auto ruled_out = [&](std::string reason) {
    if (derive_up_to(prefixes.kernel_name))
      c.kernel_name = substitute_found(config.kernel_name, prefixes.name_parts, c.bindings, placeholders);
    return invalid(std::move(c), std::move(reason));
  };
  for (size_t i = 0; i < config.constraints.size(); ++i) {
    if (!derive_up_to(prefixes.constraints[i])) return c;
    const Expr& expr = config.constraints[i];
    try {
      if (expr.eval(c.bindings) == 0) return ruled_out(std::string(kConstraintFailed) + expr.text());
    } catch (const ConfigError& e) {
      return ruled_out(fmt::format("constraint: {}", e.what()));
    }
  }
  if (!derive_up_to(config.derived.size())) return c;
  c.kernel_name = substitute_found(config.kernel_name, prefixes.name_parts, c.bindings, placeholders);

  // Launch geometry: a zero or negative size can only come from an expression bug or a missing
  // constraint, and the driver would reject the launch with a less helpful message.
  auto launch_value = [&](const Expr& expr, const std::string& what, int64_t min,
                          int64_t& out) -> bool {
    try {
      out = expr.eval(c.bindings);
    } catch (const ConfigError& e) {
      c = invalid(std::move(c), fmt::format("{}: {}", what, e.what()));
      return false;
    }
    if (out < min) {
      c = invalid(std::move(c), fmt::format("{} = {} is below {}", what, out, min));
      return false;
    }
    return true;
  };
  for (int i = 0; i < 3; ++i) {
    if (!launch_value(config.grid[i], fmt::format("launch.grid[{}]", i), 1, c.launch.grid[i]) ||
        !launch_value(config.block[i], fmt::format("launch.block[{}]", i), 1, c.launch.block[i]))
      return c;
  }
  if (!launch_value(config.shared_bytes, "launch.shared_bytes", 0, c.launch.shared_bytes)) return c;
  for (const TensorMapExpr& t : config.tensor_maps) {
    TensorMapSpec spec;
    spec.operand = t.operand;
    spec.swizzle = t.swizzle;
    for (int i = 0; i < 2; ++i)
      if (!launch_value(t.box[i], fmt::format("tensor_maps.{}.box[{}]", t.operand, i), 1, spec.box[i])) return c;
    c.launch.tensor_maps.push_back(std::move(spec));
  }
  // An estimate that cannot be evaluated leaves the candidate valid but unordered (searched last):
  // the estimate predicts, it never rules a kernel out.
  if (config.estimate) {
    try {
      c.estimate = config.estimate->eval(c.bindings);
    } catch (const ConfigError&) {
    }
  }
  return c;
}

}  // namespace

std::vector<Candidate> enumerate(const SweepConfig& config, const Bindings& context,
                                 const std::map<std::string, std::string>& placeholders) {
  check_inputs(config, context, placeholders);

  size_t total = 1;
  for (const auto& [name, values] : config.parameters) {
    if (__builtin_mul_overflow(total, values.size(), &total) || total > max_candidates)
      throw ConfigError(
          fmt::format("sweep {}: the parameters make more than {} combinations; "
                      "shorten the parameter lists",
                      config.name, max_candidates));
  }

  const DerivedPrefixes prefixes = derived_prefixes(config);
  std::vector<Candidate> out;
  out.reserve(total);
  // An odometer over the value lists: the last parameter turns fastest.
  std::vector<size_t> index(config.parameters.size(), 0);
  Bindings params;
  for (size_t n = 0; n < total; ++n) {
    for (size_t p = 0; p < config.parameters.size(); ++p)
      params[config.parameters[p].first] = config.parameters[p].second[index[p]];
    out.push_back(evaluate(config, prefixes, params, context, placeholders));
    for (size_t p = config.parameters.size(); p-- > 0;) {
      if (++index[p] < config.parameters[p].second.size()) break;
      index[p] = 0;
    }
  }
  return out;
}

Candidate make_candidate(const SweepConfig& config, const Bindings& params, const Bindings& context,
                         const std::map<std::string, std::string>& placeholders) {
  std::vector<std::string> names;
  for (const auto& [name, values] : config.parameters) names.push_back(name);
  for (const auto& [name, value] : params)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw ConfigError(fmt::format("sweep {} has no parameter {} (parameters: {})", config.name,
                                    name, fmt::join(names, ", ")));
  for (const auto& [name, values] : config.parameters)
    if (!params.count(name))
      throw ConfigError(fmt::format("sweep {}: parameter {} needs a value (the sweep tries {})",
                                    config.name, name, fmt::join(values, ", ")));
  check_inputs(config, context, placeholders);
  return evaluate(config, derived_prefixes(config), params, context, placeholders);
}

Bindings recorded_params(const SweepConfig& config, Bindings recorded) {
  for (const auto& [name, values] : config.parameters)
    if (!values.empty()) recorded.emplace(name, values.front());  // emplace keeps a recorded value
  return recorded;
}

std::string substitute(std::string_view tmpl, const Bindings& bindings,
                       const std::map<std::string, std::string>& placeholders) {
  std::vector<Placeholder> found;
  try {
    found = find_placeholders(tmpl);
  } catch (const SyntaxError& e) {
    throw ConfigError(fmt::format("template \"{}\": {}", tmpl, e.what()));
  }
  return substitute_found(tmpl, found, bindings, placeholders);
}

}  // namespace ktune
