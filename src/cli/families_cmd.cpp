// `ktune families`: every kernel family this ktune has, with what its problems are made of (the
// schema: dimensions, dtypes, options with their defaults) and the sweep configs it tunes by
// default. What it prints comes from the registry alone, so a new family shows up by itself.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "families/family.hpp"

namespace ktune::cli {

// The top-level help's last lines: each family and the sweep configs it tunes by default.
std::string families_footer() {
  std::string text = "Families and their built-in sweep configs (ktune families for their flags):";
  for (const KernelFamily* f : all_families()) {
    std::string configs;
    for (std::string_view c : f->default_configs()) {
      std::string_view stem = c.substr(c.rfind('/') + 1);
      configs += (configs.empty() ? "" : ", ") + std::string(stem.substr(0, stem.rfind('.')));
    }
    text += fmt::format("\n  {:<20} {}", f->name(), configs);
  }
  return text;
}

void setup_families(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("families", "list the kernel families, their problem dimensions, options and configs");
  cmd->callback([&exit_code] {
    for (const KernelFamily* f : all_families()) {
      const ProblemSchema schema = f->schema();
      fmt::print("{}: {}\n", f->name(), f->summary());
      for (const DimSpec& d : schema.dims) fmt::print("  {:<10} {}\n", d.name, d.help);
      std::string dtypes;
      for (const std::string& t : schema.dtypes) dtypes += (dtypes.empty() ? "" : " | ") + t;
      fmt::print("  {:<10} {}\n", "dtype", dtypes);
      for (const OptionSpec& o : schema.options) {
        std::string choices;
        for (const std::string& c : o.choices) choices += (choices.empty() ? "" : " | ") + c;
        fmt::print("  {:<10} {}: {} (default {})\n", o.name, o.help, choices, o.default_value);
      }
      std::string configs;
      for (std::string_view c : f->default_configs()) configs += (configs.empty() ? "" : ", ") + std::string(c);
      fmt::print("  {:<10} {}\n\n", "configs", configs);
    }
    exit_code = 0;
  });
}

}  // namespace ktune::cli
