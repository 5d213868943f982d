// The CLI's number check (validators.hpp).
#include "cli/validators.hpp"

#include <fmt/format.h>

#include <exception>
#include <string>

namespace ktune::cli {

CLI::Validator at_least(double low, bool strict) {
  return CLI::Validator(
      [low, strict](std::string& text) -> std::string {
        double v = 0;
        try {
          size_t used = 0;
          v = std::stod(text, &used);
          if (used != text.size()) return fmt::format("{} is not a number", text);
        } catch (const std::exception&) {
          return fmt::format("{} is not a number", text);
        }
        if (strict ? v > low : v >= low) return {};
        return fmt::format("{} must be {} {}", text, strict ? "above" : "at least", low);
      },
      fmt::format("{} {}", strict ? ">" : ">=", low));
}

}  // namespace ktune::cli
