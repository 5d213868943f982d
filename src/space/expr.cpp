// Parser (recursive descent, precedence climbing for binary operators) and evaluator for Expr.
// The tree is a flat array of nodes addressed by index: one allocation per expression, and the
// whole thing is shared between copies.
#include "space/expr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "util/error.hpp"

namespace ktune {

namespace {

enum class Op {
  literal, name,
  neg, logical_not,
  mul, div, mod, add, sub,
  lt, le, gt, ge, eq, ne,
  logical_and, logical_or,
  cond,
  min, max, cdiv,
};

struct Node {
  Op op = Op::literal;
  int column = 0;      // 1-based column of the token that made this node (for eval errors)
  int64_t value = 0;   // literal
  std::string name;    // identifier
  int a = -1, b = -1, c = -1;  // children (indices into Parsed::nodes)
};

}  // namespace

struct Expr::Parsed {
  std::string text;
  std::vector<Node> nodes;
  int root = -1;
  std::vector<NameUse> uses;
};

namespace {

enum class Tok { end, number, ident, op, lparen, rparen, comma, question, colon };

struct Token {
  Tok kind = Tok::end;
  std::string_view text;
  int column = 0;  // 1-based
};

[[noreturn]] void syntax_error(int column, const std::string& message) {
  throw SyntaxError(column, message);
}

std::string describe(const Token& t) {
  return t.kind == Tok::end ? std::string("end of expression") : fmt::format("'{}'", t.text);
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    int column = static_cast<int>(i) + 1;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    size_t start = i;
    if (is_digit(c)) {
      while (i < s.size() && is_digit(s[i])) ++i;
      if (i < s.size() && is_ident_char(s[i]))
        syntax_error(column, fmt::format("malformed number '{}'",
                                         s.substr(start, i - start + 1)));
      out.push_back({Tok::number, s.substr(start, i - start), column});
    } else if (is_ident_start(c)) {
      while (i < s.size() && is_ident_char(s[i])) ++i;
      out.push_back({Tok::ident, s.substr(start, i - start), column});
    } else {
      std::string_view two = s.substr(i, 2);
      if (two == "<=" || two == ">=" || two == "==" || two == "!=" || two == "&&" || two == "||") {
        out.push_back({Tok::op, two, column});
        i += 2;
        continue;
      }
      Tok kind = Tok::op;
      switch (c) {
        case '*': case '/': case '%': case '+': case '-': case '<': case '>': case '!': break;
        case '(': kind = Tok::lparen; break;
        case ')': kind = Tok::rparen; break;
        case ',': kind = Tok::comma; break;
        case '?': kind = Tok::question; break;
        case ':': kind = Tok::colon; break;
        case '=': syntax_error(column, "unexpected '=' (comparison is '==')");
        case '&': syntax_error(column, "unexpected '&' (logical and is '&&')");
        case '|': syntax_error(column, "unexpected '|' (logical or is '||')");
        default: syntax_error(column, fmt::format("unexpected character '{}'", c));
      }
      out.push_back({kind, s.substr(i, 1), column});
      ++i;
    }
  }
  out.push_back({Tok::end, {}, static_cast<int>(s.size()) + 1});
  return out;
}

// Binding power of a binary operator token, 0 if it is not one. Higher binds tighter.
int precedence(std::string_view op) {
  if (op == "||") return 1;
  if (op == "&&") return 2;
  if (op == "==" || op == "!=") return 3;
  if (op == "<" || op == "<=" || op == ">" || op == ">=") return 4;
  if (op == "+" || op == "-") return 5;
  if (op == "*" || op == "/" || op == "%") return 6;
  return 0;
}

Op binary_op(std::string_view op) {
  if (op == "||") return Op::logical_or;
  if (op == "&&") return Op::logical_and;
  if (op == "==") return Op::eq;
  if (op == "!=") return Op::ne;
  if (op == "<") return Op::lt;
  if (op == "<=") return Op::le;
  if (op == ">") return Op::gt;
  if (op == ">=") return Op::ge;
  if (op == "+") return Op::add;
  if (op == "-") return Op::sub;
  if (op == "*") return Op::mul;
  if (op == "/") return Op::div;
  return Op::mod;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, Expr::Parsed& out) : tokens_(std::move(tokens)), out_(out) {}

  int parse_all() {
    if (peek().kind == Tok::end) syntax_error(peek().column, "empty expression");
    int root = parse_conditional();
    if (peek().kind != Tok::end)
      syntax_error(peek().column, fmt::format("unexpected {} after a complete expression",
                                              describe(peek())));
    return root;
  }

 private:
  // Deep enough for any real constraint, shallow enough that hostile input cannot overflow the
  // stack.
  static constexpr int max_depth = 256;

  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() { return tokens_[pos_++]; }

  void expect(Tok kind, const char* what) {
    if (peek().kind != kind)
      syntax_error(peek().column, fmt::format("expected {} but found {}", what, describe(peek())));
    ++pos_;
  }

  int add(Op op, int column, int a = -1, int b = -1, int c = -1) {
    Node& n = out_.nodes.emplace_back();
    n.op = op;
    n.column = column;
    n.a = a;
    n.b = b;
    n.c = c;
    return static_cast<int>(out_.nodes.size()) - 1;
  }

  struct DepthGuard {
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > max_depth) syntax_error(p_.peek().column, "expression nested too deeply");
    }
    ~DepthGuard() { --p_.depth_; }
    Parser& p_;
  };

  int parse_conditional() {
    DepthGuard guard(*this);
    int cond = parse_binary(1);
    if (peek().kind != Tok::question) return cond;
    int column = next().column;
    int then_branch = parse_conditional();
    expect(Tok::colon, "':' of '?:'");
    int else_branch = parse_conditional();
    return add(Op::cond, column, cond, then_branch, else_branch);
  }

  int parse_binary(int min_prec) {
    int lhs = parse_unary();
    while (peek().kind == Tok::op) {
      int prec = precedence(peek().text);
      if (prec < min_prec) break;
      const Token& op = next();
      int rhs = parse_binary(prec + 1);  // left associative
      lhs = add(binary_op(op.text), op.column, lhs, rhs);
    }
    return lhs;
  }

  int parse_unary() {
    DepthGuard guard(*this);
    const Token& t = peek();
    if (t.kind == Tok::op && (t.text == "-" || t.text == "!")) {
      next();
      int operand = parse_unary();
      return add(t.text == "-" ? Op::neg : Op::logical_not, t.column, operand);
    }
    return parse_primary();
  }

  int parse_primary() {
    const Token& t = next();
    switch (t.kind) {
      case Tok::number: {
        int64_t value = 0;
        for (char c : t.text) {
          if (__builtin_mul_overflow(value, 10, &value) ||
              __builtin_add_overflow(value, c - '0', &value))
            syntax_error(t.column, fmt::format("integer literal {} does not fit in int64", t.text));
        }
        int index = add(Op::literal, t.column);
        out_.nodes[index].value = value;
        return index;
      }
      case Tok::ident: {
        if (peek().kind == Tok::lparen) return parse_call(t);
        out_.uses.push_back({std::string(t.text), t.column});
        int index = add(Op::name, t.column);
        out_.nodes[index].name = std::string(t.text);
        return index;
      }
      case Tok::lparen: {
        int inner = parse_conditional();
        expect(Tok::rparen, "')'");
        return inner;
      }
      default:
        syntax_error(t.column, fmt::format("expected a number, name or '(' but found {}",
                                           describe(t)));
    }
  }

  int parse_call(const Token& fn) {
    Op op;
    if (fn.text == "min") op = Op::min;
    else if (fn.text == "max") op = Op::max;
    else if (fn.text == "cdiv") op = Op::cdiv;
    else syntax_error(fn.column, fmt::format("unknown function '{}' (known: min, max, cdiv)",
                                             fn.text));
    next();  // '('
    std::vector<int> args;
    if (peek().kind != Tok::rparen) {
      args.push_back(parse_conditional());
      while (peek().kind == Tok::comma) {
        next();
        args.push_back(parse_conditional());
      }
    }
    expect(Tok::rparen, "',' or ')'");
    if (args.size() != 2)
      syntax_error(fn.column, fmt::format("{}() takes 2 arguments, got {}", fn.text, args.size()));
    return add(op, fn.column, args[0], args[1]);
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  Expr::Parsed& out_;
};

class Evaluator {
 public:
  Evaluator(const Expr::Parsed& p, const Bindings& names) : p_(p), names_(names) {}

  int64_t eval(int index) const {
    const Node& n = p_.nodes[index];
    switch (n.op) {
      case Op::literal: return n.value;
      case Op::name: {
        auto it = names_.find(n.name);
        if (it == names_.end()) fail(n, fmt::format("unknown name '{}'", n.name));
        return it->second;
      }
      case Op::neg: {
        int64_t v = eval(n.a);
        if (v == std::numeric_limits<int64_t>::min()) fail(n, "integer overflow in negation");
        return -v;
      }
      case Op::logical_not: return eval(n.a) == 0;
      case Op::logical_and: return eval(n.a) != 0 && eval(n.b) != 0;
      case Op::logical_or: return eval(n.a) != 0 || eval(n.b) != 0;
      case Op::cond: return eval(n.a) != 0 ? eval(n.b) : eval(n.c);
      default: break;
    }
    int64_t a = eval(n.a), b = eval(n.b), r = 0;
    switch (n.op) {
      case Op::add:
        if (__builtin_add_overflow(a, b, &r)) fail(n, "integer overflow in '+'");
        return r;
      case Op::sub:
        if (__builtin_sub_overflow(a, b, &r)) fail(n, "integer overflow in '-'");
        return r;
      case Op::mul:
        if (__builtin_mul_overflow(a, b, &r)) fail(n, "integer overflow in '*'");
        return r;
      case Op::div: check_division(n, a, b, "/"); return a / b;
      case Op::mod:
        if (b == 0) fail(n, "modulo by zero");
        return b == -1 ? 0 : a % b;  // INT64_MIN % -1 is 0, but the hardware traps on it
      case Op::cdiv: {
        check_division(n, a, b, "cdiv");
        int64_t q = a / b;
        // Truncation rounded towards zero; ceiling differs when the exact quotient is positive.
        if (a % b != 0 && ((a < 0) == (b < 0))) ++q;
        return q;
      }
      case Op::lt: return a < b;
      case Op::le: return a <= b;
      case Op::gt: return a > b;
      case Op::ge: return a >= b;
      case Op::eq: return a == b;
      case Op::ne: return a != b;
      case Op::min: return std::min(a, b);
      case Op::max: return std::max(a, b);
      default: break;
    }
    fail(n, "internal error: unhandled operator");
  }

 private:
  [[noreturn]] void fail(const Node& n, const std::string& what) const {
    throw ConfigError(fmt::format("{} (column {} of '{}')", what, n.column, p_.text));
  }

  void check_division(const Node& n, int64_t a, int64_t b, const char* op) const {
    if (b == 0) fail(n, fmt::format("division by zero in '{}'", op));
    if (a == std::numeric_limits<int64_t>::min() && b == -1)
      fail(n, fmt::format("integer overflow in '{}'", op));
  }

  const Expr::Parsed& p_;
  const Bindings& names_;
};

}  // namespace

SyntaxError::SyntaxError(int column, std::string message)
    : ConfigError(fmt::format("column {}: {}", column, message)),
      column_(column),
      message_(std::move(message)) {}

Expr::Expr() {
  static const std::shared_ptr<const Parsed> zero = parse("0").parsed_;
  parsed_ = zero;
}

Expr::Expr(std::shared_ptr<const Parsed> parsed) : parsed_(std::move(parsed)) {}

Expr Expr::parse(std::string_view text) {
  // Evaluation recurses once per tree level; bounding the text bounds the tree (a chain like
  // 1+1+...+1 is iterative to parse but as deep as it is long to evaluate).
  constexpr size_t max_length = 4096;
  if (text.size() > max_length)
    throw SyntaxError(static_cast<int>(max_length) + 1,
                      fmt::format("expression longer than {} characters", max_length));
  auto parsed = std::make_shared<Parsed>();
  parsed->text = std::string(text);
  // Tokens view parsed->text, which outlives the parser.
  Parser parser(tokenize(parsed->text), *parsed);
  parsed->root = parser.parse_all();
  return Expr(std::move(parsed));
}

int64_t Expr::eval(const Bindings& names) const {
  return Evaluator(*parsed_, names).eval(parsed_->root);
}

const std::string& Expr::text() const { return parsed_->text; }

std::vector<std::string> Expr::names() const {
  std::vector<std::string> out;
  for (const auto& use : parsed_->uses) out.push_back(use.name);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const std::vector<Expr::NameUse>& Expr::name_uses() const { return parsed_->uses; }

}  // namespace ktune
