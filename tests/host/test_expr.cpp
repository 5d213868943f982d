// Constraint expressions: C precedence and associativity, truncating / and %, short-circuit,
// errors as exceptions with columns (never undefined behaviour).
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "space/expr.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

int64_t eval(const std::string& text, const Bindings& names = {}) {
  return Expr::parse(text).eval(names);
}

// Asserts that parsing `text` fails at `column` with a message containing `needle`.
void expect_syntax_error(const std::string& text, int column, const std::string& needle) {
  SCOPED_TRACE(text);
  try {
    Expr::parse(text);
    FAIL() << "parsed without error";
  } catch (const SyntaxError& e) {
    EXPECT_EQ(e.column(), column) << e.what();
    EXPECT_NE(e.message().find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("column " + std::to_string(column) + ": ", 0), 0u)
        << e.what();
  }
}

// Asserts that evaluating `text` fails with a message containing every needle.
void expect_eval_error(const std::string& text, const Bindings& names,
                       std::initializer_list<std::string> needles) {
  SCOPED_TRACE(text);
  Expr e = Expr::parse(text);
  try {
    int64_t v = e.eval(names);
    FAIL() << "evaluated to " << v;
  } catch (const ConfigError& err) {
    for (const auto& needle : needles)
      EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
  }
}

TEST(Expr, Literals) {
  EXPECT_EQ(eval("0"), 0);
  EXPECT_EQ(eval("42"), 42);
  EXPECT_EQ(eval("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(eval("  \t7\n"), 7);
}

TEST(Expr, PrecedenceFollowsC) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("2 * 3 % 4"), 2);    // (2*3)%4, same level, left to right
  EXPECT_EQ(eval("1 + 2 < 4"), 1);    // arithmetic before comparison
  EXPECT_EQ(eval("3 < 2 == 0"), 1);   // relational before equality
  EXPECT_EQ(eval("1 == 1 && 0"), 0);  // equality before &&
  EXPECT_EQ(eval("1 || 0 && 0"), 1);  // && before ||: 1 || (0 && 0)
  EXPECT_EQ(eval("0 && 0 || 1"), 1);
  EXPECT_EQ(eval("-2 * 3"), -6);  // unary binds tightest
  EXPECT_EQ(eval("!0 + 1"), 2);
  EXPECT_EQ(eval("1 + 1 ? 10 : 20"), 10);  // ?: binds loosest
}

TEST(Expr, LeftAssociativeArithmetic) {
  EXPECT_EQ(eval("10 - 4 - 3"), 3);
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("100 % 7 % 3"), 2);
}

TEST(Expr, TernaryIsRightAssociative) {
  EXPECT_EQ(eval("0 ? 1 : 0 ? 2 : 3"), 3);
  EXPECT_EQ(eval("0 ? 1 : 1 ? 2 : 3"), 2);
  EXPECT_EQ(eval("1 ? 0 ? 4 : 5 : 6"), 5);
}

TEST(Expr, DivisionTruncatesLikeC) {
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -3);
  EXPECT_EQ(eval("7 / -2"), -3);
  EXPECT_EQ(eval("-7 % 2"), -1);
  EXPECT_EQ(eval("7 % -2"), 1);
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval("min(3, -4)"), -4);
  EXPECT_EQ(eval("max(3, -4)"), 3);
  EXPECT_EQ(eval("max(min(10, 20), 5 * 3)"), 15);
  EXPECT_EQ(eval("cdiv(7, 2)"), 4);
  EXPECT_EQ(eval("cdiv(8, 2)"), 4);
  EXPECT_EQ(eval("cdiv(0, 5)"), 0);
  EXPECT_EQ(eval("cdiv(1, 4096)"), 1);
  EXPECT_EQ(eval("cdiv(-7, 2)"), -3);  // ceil(-3.5)
  EXPECT_EQ(eval("cdiv(7, -2)"), -3);
  EXPECT_EQ(eval("cdiv(-7, -2)"), 4);  // ceil(3.5)
}

TEST(Expr, BooleansAreZeroOrOne) {
  EXPECT_EQ(eval("5 && 7"), 1);
  EXPECT_EQ(eval("0 || -9"), 1);
  EXPECT_EQ(eval("!5"), 0);
  EXPECT_EQ(eval("!!5"), 1);
  EXPECT_EQ(eval("3 <= 3") + eval("3 < 3") + eval("4 >= 5") + eval("4 > 3") + eval("2 != 2"), 2);
}

TEST(Expr, ShortCircuitSkipsErrors) {
  EXPECT_EQ(eval("0 && 1 / 0"), 0);
  EXPECT_EQ(eval("1 || 1 / 0"), 1);
  EXPECT_EQ(eval("1 ? 2 : 1 / 0"), 2);
  EXPECT_EQ(eval("0 ? 1 % 0 : 3"), 3);
  EXPECT_EQ(eval("X != 0 && 10 / X > 1", {{"X", 0}}), 0);
  EXPECT_EQ(eval("0 && UNKNOWN"), 0);  // unknown names are only looked up when reached
  // Not short-circuited: the right side is evaluated and fails.
  expect_eval_error("1 && 1 / 0", {}, {"division by zero"});
}

TEST(Expr, Names) {
  Bindings b{{"BLOCK_M", 128}, {"M", 4096}, {"_x1", -2}};
  EXPECT_EQ(eval("M % BLOCK_M == 0", b), 1);
  EXPECT_EQ(eval("cdiv(M, BLOCK_M) * _x1", b), -64);
  Expr e = Expr::parse("B + A * B - min(A, C)");
  EXPECT_EQ(e.names(), (std::vector<std::string>{"A", "B", "C"}));
  ASSERT_EQ(e.name_uses().size(), 5u);
  EXPECT_EQ(e.name_uses()[0].name, "B");
  EXPECT_EQ(e.name_uses()[0].column, 1);
  EXPECT_EQ(e.name_uses()[1].name, "A");
  EXPECT_EQ(e.name_uses()[1].column, 5);
  EXPECT_EQ(e.name_uses()[4].name, "C");
  EXPECT_EQ(e.name_uses()[4].column, 20);
  // A function name is not a name reference; the same word without '(' is.
  EXPECT_EQ(Expr::parse("min(1, 2) + min").names(), std::vector<std::string>{"min"});
}

TEST(Expr, TextAndCopies) {
  Expr e = Expr::parse("A * 2");
  EXPECT_EQ(e.text(), "A * 2");
  Expr copy = e;
  e = Expr::parse("A + 1");
  EXPECT_EQ(copy.text(), "A * 2");
  EXPECT_EQ(copy.eval({{"A", 21}}), 42);
  EXPECT_EQ(e.eval({{"A", 21}}), 22);
  Expr zero;
  EXPECT_EQ(zero.text(), "0");
  EXPECT_EQ(zero.eval({}), 0);
}

TEST(Expr, EvalErrorsNameTheColumnAndText) {
  expect_eval_error("M / (N - 4)", {{"M", 1}, {"N", 4}},
                    {"division by zero", "column 3", "'M / (N - 4)'"});
  expect_eval_error("5 % 0", {}, {"modulo by zero", "column 3"});
  expect_eval_error("cdiv(5, 0)", {}, {"division by zero", "column 1"});
  expect_eval_error("A + Q", {{"A", 1}}, {"unknown name 'Q'", "column 5"});
}

TEST(Expr, OverflowIsAnError) {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  const int64_t hi = std::numeric_limits<int64_t>::max();
  expect_eval_error("9223372036854775807 + 1", {}, {"overflow", "'+'"});
  expect_eval_error("-9223372036854775807 - 2", {}, {"overflow", "'-'"});
  expect_eval_error("4294967296 * 4294967296", {}, {"overflow", "'*'"});
  expect_eval_error("-X", {{"X", lo}}, {"overflow"});
  expect_eval_error("X / -1", {{"X", lo}}, {"overflow"});
  expect_eval_error("cdiv(X, -1)", {{"X", lo}}, {"overflow"});
  EXPECT_EQ(eval("X % -1", {{"X", lo}}), 0);
  EXPECT_EQ(eval("X - 1", {{"X", hi}}), hi - 1);
  EXPECT_EQ(eval("-X - 1", {{"X", hi}}), lo);
}

TEST(Expr, SyntaxErrorsGiveColumns) {
  expect_syntax_error("", 1, "empty expression");
  expect_syntax_error("   ", 4, "empty expression");
  expect_syntax_error("1 +", 4, "end of expression");
  expect_syntax_error("(1 + 2", 7, "expected ')'");
  expect_syntax_error("1 2", 3, "unexpected '2'");
  expect_syntax_error("A = 1", 3, "'=='");
  expect_syntax_error("A & B", 3, "'&&'");
  expect_syntax_error("A | B", 3, "'||'");
  expect_syntax_error("A # B", 3, "unexpected character '#'");
  expect_syntax_error("12ab", 1, "malformed number");
  expect_syntax_error("9223372036854775808", 1, "does not fit in int64");
  expect_syntax_error("1 + foo(2, 3)", 5, "unknown function 'foo'");
  expect_syntax_error("min(1)", 1, "takes 2 arguments, got 1");
  expect_syntax_error("cdiv(1, 2, 3)", 1, "takes 2 arguments, got 3");
  expect_syntax_error("max(1 2)", 7, "expected ',' or ')'");
  expect_syntax_error("A ? B", 6, "expected ':'");
  expect_syntax_error("A ? : B", 5, "expected a number, name or '('");
  expect_syntax_error("* 2", 1, "expected a number, name or '('");
  expect_syntax_error("(1))", 4, "unexpected ')'");
}

TEST(Expr, SyntaxErrorIsAConfigError) {
  try {
    Expr::parse("A +");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "column 4: expected a number, name or '(' but found end of expression");
  }
}

TEST(Expr, DeepNestingIsAnErrorNotACrash) {
  // Each '(' costs two levels of recursion (?: and unary); the limit is 256 levels.
  std::string deep = std::string(300, '(') + "1" + std::string(300, ')');
  expect_syntax_error(deep, 129, "nested too deeply");
  std::string negations(100000, '-');
  negations += "1";
  EXPECT_THROW(Expr::parse(negations), SyntaxError);
  // Long flat chains parse iteratively but evaluate recursively: the text length is bounded.
  std::string chain = "1";
  for (int i = 0; i < 3000; ++i) chain += "+1";
  expect_syntax_error(chain, 4097, "longer than 4096 characters");
  // Reasonable nesting is fine.
  EXPECT_EQ(eval(std::string(50, '(') + "3" + std::string(50, ')')), 3);
}

}  // namespace
}  // namespace ktune
