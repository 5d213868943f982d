// The family-independent uses of ProblemSchema: completing and checking a problem, writing its
// shape, ordering table columns; see family.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "families/family.hpp"
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
  for (const OptionSpec& o : find_family(p.family).schema().options)
    if (!p.options.count(o.name)) p.options[o.name] = o.default_value;
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
    if (it == p.options.end()) throw ConfigError(fmt::format("{} problem is missing option {}", p.family, o.name));
    if (std::find(o.choices.begin(), o.choices.end(), it->second) == o.choices.end())
      throw ConfigError(fmt::format("unknown {} '{}' for {} ({}: {})", o.name, it->second, p.family, o.help,
                                    joined(o.choices)));
  }
  for (const auto& [name, value] : p.options)
    if (std::find(option_names.begin(), option_names.end(), name) == option_names.end())
      throw ConfigError(fmt::format("{} has no option '{}' (its options: {})", p.family, name,
                                    option_names.empty() ? "none" : joined(option_names)));
  family.validate(p);
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
        for (const OptionSpec& o : s.options) names.push_back(o.name);
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
