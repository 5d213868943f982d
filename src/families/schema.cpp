// The family-independent uses of ProblemSchema: completing and checking a problem, writing its
// shape, ordering table columns; see family.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "families/family.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

const KernelFamily* known_family(const std::string& name) {
  for (const KernelFamily* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Names in the order the families declare them (first appearance first), then the rest sorted.
template <typename NamesOf, typename Present>
std::vector<std::string> columns(const std::vector<Problem>& problems, NamesOf names_of, Present present) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Problem& p : problems)
    if (const KernelFamily* f = known_family(p.family))
      for (const std::string& name : names_of(f->schema()))
        if (seen.insert(name).second) out.push_back(name);
  std::set<std::string> rest;
  for (const Problem& p : problems)
    for (const std::string& name : present(p))
      if (!seen.count(name)) rest.insert(name);
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

}  // namespace

void complete_options(Problem& p) {
  const ProblemSchema schema = find_family(p.family).schema();
  for (const OptionSpec& o : schema.options) {
    auto it = p.options.find(o.name);
    if (o.left_out_at_default) {
      if (it != p.options.end() && it->second == o.default_value) p.options.erase(it);
    } else if (it == p.options.end()) {
      p.options[o.name] = o.default_value;
    }
  }
  for (const DimSpec& d : schema.dims)
    if (!p.dims.count(d.name) && !d.defaults_to.empty() && p.dims.count(d.defaults_to))
      p.dims[d.name] = p.dims.at(d.defaults_to);
}

void check_problem(const Problem& p) {
  const KernelFamily& family = find_family(p.family);
  const ProblemSchema schema = family.schema();
  std::vector<std::string> dim_names, option_names;
  for (const DimSpec& d : schema.dims) {
    dim_names.push_back(d.name);
    if (!p.dims.count(d.name)) throw ConfigError(fmt::format("{} problem is missing {}", p.family, d.name));
  }
  // A typo ("KK") must not become a silent extra dimension of the problem and of its cache key.
  for (const auto& [name, value] : p.dims)
    if (std::find(dim_names.begin(), dim_names.end(), name) == dim_names.end())
      throw ConfigError(fmt::format("{} has no dimension '{}' (its dimensions: {})", p.family, name, joined(dim_names)));
  if (std::find(schema.dtypes.begin(), schema.dtypes.end(), p.dtype) == schema.dtypes.end())
    throw ConfigError(fmt::format("unknown dtype '{}' for {} ({})", p.dtype, p.family, joined(schema.dtypes)));
  for (const OptionSpec& o : schema.options) {
    option_names.push_back(o.name);
    auto it = p.options.find(o.name);
    if (it == p.options.end()) {
      if (o.left_out_at_default) continue;
      throw ConfigError(fmt::format("{} problem is missing option {}", p.family, o.name));
    }
    if (std::find(o.choices.begin(), o.choices.end(), it->second) == o.choices.end())
      throw ConfigError(fmt::format("unknown {} '{}' for {} ({}: {})", o.name, it->second, p.family, o.help,
                                    joined(o.choices)));
  }
  for (const auto& [name, value] : p.options)
    if (std::find(option_names.begin(), option_names.end(), name) == option_names.end())
      throw ConfigError(fmt::format("{} has no option '{}' (its options: {})", p.family, name,
                                    option_names.empty() ? "none" : joined(option_names)));
  family.validate(p);
  // A problem no GPU could hold is bad input, said before looking for a GPU (the tuner still
  // checks it against the one it gets).
  constexpr double kMoreThanAnyGpu = 4.0 * (int64_t{1} << 40);  // 4 TiB
  if (const double bytes = static_cast<double>(family.device_bytes(p)); bytes > kMoreThanAnyGpu)
    throw ConfigError(fmt::format("{} needs {:.0f} GiB of device memory; no GPU has that much", describe(p),
                                  bytes / (int64_t{1} << 30)));
}

ConfigProblems config_problems(const SweepConfig& config, const std::vector<Bindings>& dims) {
  const ProblemSchema schema = find_family(config.family).schema();
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;  // the options, in schema order
  for (const auto& [name, values] : config.options)
    if (std::none_of(schema.options.begin(), schema.options.end(), [&](const OptionSpec& o) { return o.name == name; }))
      throw ConfigError(fmt::format("{}: {} has no option '{}'", config.name, config.family, name));
  for (const OptionSpec& o : schema.options) {
    auto given = std::find_if(config.options.begin(), config.options.end(), [&](const auto& kv) { return kv.first == o.name; });
    axes.emplace_back(o.name, given == config.options.end() ? std::vector<std::string>{o.default_value} : given->second);
  }
  const std::vector<std::string> dtypes = config.dtypes.empty() ? std::vector<std::string>{schema.dtypes.front()} : config.dtypes;

  ConfigProblems out;
  for (const Bindings& d : dims)
    for (const std::string& dtype : dtypes) {
      // Every combination of option values: an odometer over the axes.
      std::vector<size_t> at(axes.size(), 0);
      for (bool more = true; more;) {
        Problem p{config.family, d, dtype, {}};
        for (size_t i = 0; i < axes.size(); ++i) p.options[axes[i].first] = axes[i].second[at[i]];
        try {
          complete_options(p);
          check_problem(p);
          out.problems.push_back(std::move(p));
        } catch (const ConfigError& e) {
          out.skipped.emplace_back(std::move(p), e.what());
        }
        more = false;
        for (size_t i = axes.size(); i-- > 0;) {
          if (++at[i] < axes[i].second.size()) {
            more = true;
            break;
          }
          at[i] = 0;
        }
      }
    }
  return out;
}

Bound rate_bound(const Problem& p) {
  const KernelFamily* f = known_family(p.family);
  return f ? f->problem_bound(p) : Bound::compute;
}

namespace {
bool memory_bound(const Problem& p) { return rate_bound(p) == Bound::memory; }
}  // namespace

std::string rate_unit(const Problem& p) { return memory_bound(p) ? "GB/s" : "TFLOPS"; }

double rate_value(const Problem& p, double tflops, double gbps) { return memory_bound(p) ? gbps : tflops; }

std::string rate_text(const Problem& p, double tflops, double gbps) {
  return memory_bound(p) ? fmt::format("{:.0f} GB/s", gbps) : fmt::format("{:.1f} TFLOPS", tflops);
}

std::string shape_text(const Problem& p) {
  std::vector<std::string> parts;
  std::string shape;
  std::set<std::string> written;
  if (const KernelFamily* f = known_family(p.family)) {
    const ProblemSchema schema = f->schema();
    for (const DimSpec& d : schema.dims)
      if (auto it = p.dims.find(d.name); it != p.dims.end()) {
        shape += fmt::format("{}{}", shape.empty() ? "" : "x", it->second);
        written.insert(d.name);
      }
    if (!shape.empty()) parts.push_back(shape);
    for (const auto& [name, value] : p.dims)
      if (!written.count(name)) parts.push_back(fmt::format("{}={}", name, value));
    parts.push_back(p.dtype);
    std::set<std::string> options_written;
    for (const OptionSpec& o : schema.options)
      if (auto it = p.options.find(o.name); it != p.options.end()) {
        parts.push_back(it->second);
        options_written.insert(o.name);
      }
    for (const auto& [name, value] : p.options)
      if (!options_written.count(name)) parts.push_back(fmt::format("{}={}", name, value));
  } else {
    for (const auto& [name, value] : p.dims) parts.push_back(fmt::format("{}={}", name, value));
    parts.push_back(p.dtype);
    for (const auto& [name, value] : p.options) parts.push_back(fmt::format("{}={}", name, value));
  }
  std::string out;
  for (const std::string& part : parts)
    if (!part.empty()) out += (out.empty() ? "" : " ") + part;
  return out;
}

std::string describe(const Problem& p) {
  const std::string shape = shape_text(p);
  return shape.empty() ? p.family : p.family + " " + shape;
}

std::vector<std::string> dim_columns(const std::vector<Problem>& problems) {
  return columns(
      problems,
      [](const ProblemSchema& s) {
        std::vector<std::string> names;
        for (const DimSpec& d : s.dims) names.push_back(d.name);
        return names;
      },
      [](const Problem& p) {
        std::vector<std::string> names;
        for (const auto& [name, value] : p.dims) names.push_back(name);
        return names;
      });
}

std::vector<std::string> option_columns(const std::vector<Problem>& problems) {
  return columns(
      problems,
      [](const ProblemSchema& s) {
        std::vector<std::string> names;
        for (const OptionSpec& o : s.options)
          if (!o.left_out_at_default) names.push_back(o.name);  // a column only where a problem sets it
        return names;
      },
      [](const Problem& p) {
        std::vector<std::string> names;
        for (const auto& [name, value] : p.options) names.push_back(name);
        return names;
      });
}

ProblemColumns problem_columns(const std::vector<ProblemResult>& results) {
  std::vector<Problem> problems;
  for (const ProblemResult& r : results) problems.push_back(r.problem);
  return {dim_columns(problems), option_columns(problems)};
}

}  // namespace ktune
