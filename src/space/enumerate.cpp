// Enumeration of a sweep's candidates: a depth-first walk of the parameters' product, the first
// parameter at the top. Each derived value and constraint belongs to the level of the deepest
// parameter it reads, through the derived values it reads (the context alone: above the first).
// A level's derived values are computed and its constraints checked as soon as its parameter
// has a value, so a constraint that fails there rules out the whole subtree below at once and
// is counted, not listed: at 4096^3 fp16, gemm_wgmma's "BLOCK_K * elem_bytes == 128" rules out
// two thirds of its 518,400 combinations three levels down. Only the combinations no
// constraint rules out reach the bottom, where the kernel name, launch and estimate are made.
#include "space/enumerate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "util/error.hpp"

namespace ktune {

namespace {

// Guards, not tuning knobs. Each candidate kept costs about a kilobyte and, if valid, a compile:
// a sweep whose constraints leave a quarter of a million is a config mistake. The product may be
// much larger, as long as constraints on its first parameters cut it down: the walk visits only
// what they leave.
constexpr size_t max_candidates = 250'000;
constexpr size_t max_combinations = 100'000'000;

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

// Where in the walk each derived value and constraint is evaluated.
struct Plan {
  // By depth, the number of parameters with values once they can be evaluated (0: the context
  // alone suffices), in config order.
  std::vector<std::vector<size_t>> derived_at, constraints_at;
  // The derived values each constraint reads, directly or through other derived values.
  std::vector<std::vector<size_t>> constraint_needs;
  std::vector<Placeholder> name_parts;  // find_placeholders(config.kernel_name), parsed once
};

Plan make_plan(const SweepConfig& config) {
  std::map<std::string, int> param_level;
  for (size_t p = 0; p < config.parameters.size(); ++p) param_level[config.parameters[p].first] = static_cast<int>(p);
  std::map<std::string, size_t> derived_index;
  std::vector<int> derived_level;
  std::vector<std::set<size_t>> derived_needs;  // itself and every derived value it reads
  // The deepest parameter an expression reads (its index, -1 for none) and the derived values it
  // reads: the parser lets a derived value read only the ones above it, so theirs are known.
  auto place = [&](const Expr& e, int& level, std::set<size_t>& needs) {
    for (const std::string& name : e.names()) {
      if (auto p = param_level.find(name); p != param_level.end()) level = std::max(level, p->second);
      if (auto d = derived_index.find(name); d != derived_index.end()) {
        level = std::max(level, derived_level[d->second]);
        needs.insert(derived_needs[d->second].begin(), derived_needs[d->second].end());
      }
    }
  };
  Plan plan;
  plan.derived_at.resize(config.parameters.size() + 1);
  plan.constraints_at.resize(config.parameters.size() + 1);
  for (size_t i = 0; i < config.derived.size(); ++i) {
    int level = -1;
    std::set<size_t> needs{i};
    place(config.derived[i].second, level, needs);
    derived_index[config.derived[i].first] = i;
    derived_level.push_back(level);
    derived_needs.push_back(std::move(needs));
    plan.derived_at[level + 1].push_back(i);
  }
  for (size_t k = 0; k < config.constraints.size(); ++k) {
    int level = -1;
    std::set<size_t> needs;
    place(config.constraints[k], level, needs);
    plan.constraints_at[level + 1].push_back(k);
    plan.constraint_needs.emplace_back(needs.begin(), needs.end());
  }
  plan.name_parts = find_placeholders(config.kernel_name);
  return plan;
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

// The name, launch geometry and estimate of a combination every constraint allows, from its
// bindings. An evaluation error or a launch size below its minimum makes it invalid.
Candidate finish(const SweepConfig& config, const Plan& plan, Candidate c,
                 const std::map<std::string, std::string>& placeholders) {
  c.kernel_name = substitute_found(config.kernel_name, plan.name_parts, c.bindings, placeholders);
  // A zero or negative size can only come from an expression bug or a missing constraint, and the
  // driver would reject the launch with a less helpful message.
  auto launch_value = [&](const Expr& expr, const std::string& what, int64_t min, int64_t& out) -> bool {
    try {
      out = expr.eval(c.bindings);
    } catch (const ConfigError& e) {
      c.invalid_reason = fmt::format("{}: {}", what, e.what());
      return false;
    }
    if (out < min) {
      c.invalid_reason = fmt::format("{} = {} is below {}", what, out, min);
      return false;
    }
    return true;
  };
  auto invalid = [&] {
    c.valid = false;
    c.bindings.clear();
    c.kernel_name.clear();
    return std::move(c);
  };
  for (int i = 0; i < 3; ++i) {
    if (!launch_value(config.grid[i], fmt::format("launch.grid[{}]", i), 1, c.launch.grid[i]) ||
        !launch_value(config.block[i], fmt::format("launch.block[{}]", i), 1, c.launch.block[i]))
      return invalid();
  }
  if (!launch_value(config.shared_bytes, "launch.shared_bytes", 0, c.launch.shared_bytes)) return invalid();
  for (const TensorMapExpr& t : config.tensor_maps) {
    TensorMapSpec spec;
    spec.operand = t.operand;
    spec.swizzle = t.swizzle;
    for (int i = 0; i < 2; ++i)
      if (!launch_value(t.box[i], fmt::format("tensor_maps.{}.box[{}]", t.operand, i), 1, spec.box[i]))
        return invalid();
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

// The walk over `values` (one list per parameter, in the config's order). check_inputs has run,
// so an evaluation error can only come from arithmetic (division by zero, overflow).
class Walk {
 public:
  Walk(const SweepConfig& config, const Plan& plan, const std::vector<std::vector<int64_t>>& values,
       const Bindings& context, const std::map<std::string, std::string>& placeholders)
      : config_(config), plan_(plan), values_(values), placeholders_(placeholders), bindings_(context),
        derived_error_(config.derived.size()), below_(values.size() + 1, 1) {
    for (size_t p = values.size(); p-- > 0;) below_[p] = below_[p + 1] * static_cast<int64_t>(values[p].size());
  }

  Enumeration run() {
    visit(0);
    return std::move(out_);
  }

 private:
  // Evaluates what level `depth` makes computable (depth parameters have values), then goes down.
  void visit(size_t depth) {
    for (size_t i : plan_.derived_at[depth]) {
      const auto& [name, expr] = config_.derived[i];
      try {
        bindings_[name] = expr.eval(bindings_);
        derived_error_[i].clear();
      } catch (const ConfigError& e) {
        bindings_.erase(name);  // what reads it is judged by derived_error_, never by a stale value
        derived_error_[i] = fmt::format("derived {}: {}", name, e.what());
      }
    }
    for (size_t k : plan_.constraints_at[depth]) {
      for (size_t i : plan_.constraint_needs[k])
        if (!derived_error_[i].empty()) return fill(depth, derived_error_[i]);
      const Expr& expr = config_.constraints[k];
      try {
        if (expr.eval(bindings_) == 0) {
          out_.ruled_out[std::string(kConstraintFailed) + expr.text()] += below_[depth];
          return;
        }
      } catch (const ConfigError& e) {
        return fill(depth, fmt::format("constraint: {}", e.what()));
      }
    }
    if (depth == values_.size()) return bottom();
    const std::string& name = config_.parameters[depth].first;
    for (int64_t v : values_[depth]) {
      params_[name] = v;
      bindings_[name] = v;
      visit(depth + 1);
    }
  }

  // A combination every constraint allows.
  void bottom() {
    for (const std::string& error : derived_error_)
      if (!error.empty()) return push_invalid(error);
    Candidate c;
    c.params = params_;
    c.bindings = bindings_;
    keep(finish(config_, plan_, std::move(c), placeholders_));
  }

  // Every combination below `depth` is invalid with `reason` (an evaluation error, listed).
  void fill(size_t depth, const std::string& reason) {
    if (depth == values_.size()) return push_invalid(reason);
    const std::string& name = config_.parameters[depth].first;
    for (int64_t v : values_[depth]) {
      params_[name] = v;
      fill(depth + 1, reason);
    }
  }

  void push_invalid(const std::string& reason) {
    Candidate c;
    c.params = params_;
    c.valid = false;
    c.invalid_reason = reason;
    keep(std::move(c));
  }

  void keep(Candidate c) {
    if (out_.candidates.size() == max_candidates)
      throw ConfigError(fmt::format("sweep {}: the constraints leave more than {} combinations; add constraints "
                                    "or shorten the parameter lists",
                                    config_.name, max_candidates));
    out_.candidates.push_back(std::move(c));
  }

  const SweepConfig& config_;
  const Plan& plan_;
  const std::vector<std::vector<int64_t>>& values_;
  const std::map<std::string, std::string>& placeholders_;
  Bindings bindings_;  // the context, the parameters above and the derived values of their levels
  Bindings params_;
  std::vector<std::string> derived_error_;  // by derived value: why it failed at its level, or ""
  std::vector<int64_t> below_;              // below_[d]: how many combinations a node at depth d covers
  Enumeration out_;
};

}  // namespace

int64_t Enumeration::ruled_out_total() const {
  int64_t n = 0;
  for (const auto& [reason, count] : ruled_out) n += count;
  return n;
}

Enumeration enumerate(const SweepConfig& config, const Bindings& context,
                      const std::map<std::string, std::string>& placeholders) {
  check_inputs(config, context, placeholders);

  size_t total = 1;
  std::vector<std::vector<int64_t>> values;
  for (const auto& [name, list] : config.parameters) {
    if (__builtin_mul_overflow(total, list.size(), &total) || total > max_combinations)
      throw ConfigError(
          fmt::format("sweep {}: the parameters make more than {} combinations; "
                      "shorten the parameter lists",
                      config.name, max_combinations));
    values.push_back(list);
  }
  return Walk(config, make_plan(config), values, context, placeholders).run();
}

Candidate make_candidate(const SweepConfig& config, const Bindings& params, const Bindings& context,
                         const std::map<std::string, std::string>& placeholders) {
  std::vector<std::string> names;
  for (const auto& [name, values] : config.parameters) names.push_back(name);
  for (const auto& [name, value] : params)
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw ConfigError(fmt::format("sweep {} has no parameter {} (parameters: {})", config.name,
                                    name, fmt::join(names, ", ")));
  std::vector<std::vector<int64_t>> values;
  for (const auto& [name, list] : config.parameters) {
    auto it = params.find(name);
    if (it == params.end())
      throw ConfigError(fmt::format("sweep {}: parameter {} needs a value (the sweep tries {})",
                                    config.name, name, fmt::join(list, ", ")));
    values.push_back({it->second});
  }
  check_inputs(config, context, placeholders);
  Enumeration one = Walk(config, make_plan(config), values, context, placeholders).run();
  if (!one.candidates.empty()) return std::move(one.candidates.front());
  Candidate c;
  c.params = params;
  c.valid = false;
  c.invalid_reason = one.ruled_out.begin()->first;
  return c;
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
