// Integer expressions for sweep constraints, derived values and launch geometry.
// Hand-written rather than borrowed (muParser and friends compute in double) because constraints
// need exact int64 arithmetic with C's truncating / and %, overflow and division by zero reported
// as errors instead of undefined behaviour, and column numbers in messages.
//
// Grammar, lowest precedence first (as in C; && and || short-circuit; booleans are 0/1):
//   cond ? a : b   ||   &&   == !=   < <= > >=   + -   * / %   unary - !
//   primary: int64 literal | identifier | min(a,b) | max(a,b) | cdiv(a,b) | ( expr )
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/record.hpp"
#include "util/error.hpp"

namespace ktune {

// A syntax error at a column of a one-line text (an expression, a kernel_name template).
// what() is "column C: message"; the parts are kept so that a caller can place the error in a
// larger text, such as the line and column of a config file.
class SyntaxError : public ConfigError {
 public:
  SyntaxError(int column, std::string message);
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  int column_;  // 1-based
  std::string message_;
};

class Expr {
 public:
  // One reference to an identifier, with its 1-based column in the expression text.
  struct NameUse {
    std::string name;
    int column = 0;
  };

  Expr();  // the constant "0"

  // Throws SyntaxError ("column C: message") on a syntax error.
  static Expr parse(std::string_view text);

  // Throws ConfigError on an unknown name, division by zero or overflow; the message names the
  // column and the expression text.
  int64_t eval(const Bindings& names) const;

  const std::string& text() const;
  // Identifiers referenced, deduplicated and sorted.
  std::vector<std::string> names() const;
  // Every identifier reference in source order (for error messages that point at one).
  const std::vector<NameUse>& name_uses() const;

  struct Parsed;  // defined in expr.cpp

 private:
  explicit Expr(std::shared_ptr<const Parsed> parsed);
  // Immutable after parsing, so copies share it: an Expr is evaluated once per candidate.
  std::shared_ptr<const Parsed> parsed_;
};

}  // namespace ktune
