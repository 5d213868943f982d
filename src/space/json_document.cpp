#include "space/json_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>

#include "util/error.hpp"

namespace ktune {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// ---- where things are in the text ---------------------------------------------------------

struct LineCol {
  size_t line = 1, column = 1;
};

LineCol line_col(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  LineCol lc;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') ++lc.line, line_start = i + 1;
  lc.column = offset - line_start + 1;
  return lc;
}

}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string join_names(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// " (did you mean X?)" when one known name is a likely typo of `name`, else "".
std::string suggestion(std::string_view name, const std::vector<std::string>& known) {
  const std::string* best = nullptr;
  size_t best_distance = 3;  // more than two edits away is not a typo
  for (const auto& k : known) {
    size_t d = edit_distance(name, k);
    if (d < best_distance) best_distance = d, best = &k;
  }
  return best ? fmt::format(" (did you mean {}?)", *best) : "";
}

std::string pointer_child(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {  // JSON pointer escaping, so that any key maps to one path
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string pointer_child(const std::string& parent, size_t index) {
  return parent + "/" + std::to_string(index);
}

// Byte offsets of every key and value in a JSON text that nlohmann has already accepted, keyed
// by JSON pointer ("/parameters/BLOCK_M/1"). Also catches duplicate keys, which nlohmann
// silently merges.
class JsonPositions {
 public:
  static constexpr int max_depth = 512;  // as deep as any config needs; keeps recursion bounded
  struct TooDeep {
    size_t offset;
  };

  explicit JsonPositions(std::string_view text) : text_(text) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;  // UTF-8 byte order mark (nlohmann skips it)
    value("");
  }

  std::optional<size_t> value_at(const std::string& pointer) const {
    return find(values_, pointer);
  }
  std::optional<size_t> key_at(const std::string& pointer) const { return find(keys_, pointer); }
  // The first key that appears twice in one object: its pointer and the second occurrence.
  const std::optional<std::pair<std::string, size_t>>& duplicate() const { return duplicate_; }

  // Offset of the byte that holds decoded character `index` of the string starting at `quote`.
  size_t offset_in_string(size_t quote, size_t index) const {
    size_t r = quote + 1, decoded = 0;
    while (decoded < index && r < text_.size() && text_[r] != '"') {
      if (text_[r] != '\\') {
        ++r, ++decoded;
      } else if (text_[r + 1] != 'u') {
        r += 2, ++decoded;
      } else {
        unsigned code = std::stoul(std::string(text_.substr(r + 2, 4)), nullptr, 16);
        r += 6;
        if (code >= 0xD800 && code < 0xDC00)
          r += 6, decoded += 4;  // surrogate pair
        else
          decoded += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;  // UTF-8 length
      }
    }
    return r;
  }

 private:
  static std::optional<size_t> find(const std::map<std::string, size_t>& m, const std::string& p) {
    auto it = m.find(p);
    if (it == m.end()) return std::nullopt;
    return it->second;
  }

  void skip_space() {
    while (i_ < text_.size() && std::strchr(" \t\r\n", text_[i_]) && text_[i_] != '\0') ++i_;
  }

  std::string_view string_token() {
    size_t start = i_++;
    while (text_[i_] != '"') i_ += text_[i_] == '\\' ? 2 : 1;
    ++i_;
    return text_.substr(start, i_ - start);
  }

  void value(const std::string& path, int depth = 0) {
    if (depth > max_depth) throw TooDeep{i_};
    skip_space();
    values_[path] = i_;
    char c = text_[i_];
    if (c == '{') {
      ++i_;
      skip_space();
      while (text_[i_] != '}') {
        size_t key_offset = i_;
        auto key = Json::parse(string_token()).get<std::string>();
        std::string child = pointer_child(path, key);
        if (!keys_.emplace(child, key_offset).second && !duplicate_)
          duplicate_ = std::make_pair(child, key_offset);
        skip_space();
        ++i_;  // ':'
        value(child, depth + 1);
        skip_space();
        if (text_[i_] == ',') ++i_, skip_space();
      }
      ++i_;
    } else if (c == '[') {
      ++i_;
      skip_space();
      for (size_t index = 0; text_[i_] != ']'; ++index) {
        value(pointer_child(path, index), depth + 1);
        skip_space();
        if (text_[i_] == ',') ++i_, skip_space();
      }
      ++i_;
    } else if (c == '"') {
      string_token();
    } else {  // number, true, false, null
      while (i_ < text_.size() && !std::strchr(",]} \t\r\n", text_[i_])) ++i_;
    }
  }

  std::string_view text_;
  size_t i_ = 0;
  std::map<std::string, size_t> values_, keys_;
  std::optional<std::pair<std::string, size_t>> duplicate_;
};

JsonDocument::JsonDocument(std::string_view text, std::string origin)
    : text_(text), origin_(std::move(origin)), doc_(parse_json()) {
  try {
    positions_ = std::make_unique<JsonPositions>(text_);
  } catch (const JsonPositions::TooDeep& e) {
    fail_offset(e.offset, fmt::format("JSON nested more than {} levels deep", JsonPositions::max_depth));
  }
  if (const auto& dup = positions_->duplicate())
    fail_offset(dup->second, fmt::format("duplicate key \"{}\"", last_key(dup->first)));
}

JsonDocument::~JsonDocument() = default;
JsonDocument::JsonDocument(JsonDocument&&) noexcept = default;

void JsonDocument::fail_offset(size_t offset, const std::string& message) const {
  LineCol lc = line_col(text_, offset);
  throw ConfigError(fmt::format("{}:{}:{}: {}", origin_, lc.line, lc.column, message));
}

void JsonDocument::fail(const std::string& pointer, const std::string& message) const {
  fail_offset(positions_ ? positions_->value_at(pointer).value_or(0) : 0, message);
}

void JsonDocument::fail_key(const std::string& pointer, const std::string& message) const {
  fail_offset(positions_ ? positions_->key_at(pointer).value_or(0) : 0, message);
}

std::string JsonDocument::where(const std::string& pointer) const {
  LineCol lc = line_col(text_, positions_->value_at(pointer).value_or(0));
  return fmt::format("{}:{}:{}", origin_, lc.line, lc.column);
}

std::string JsonDocument::last_key(const std::string& pointer) {
  return Json(Json::json_pointer(pointer).back()).get<std::string>();
}

size_t JsonDocument::in_string(const std::string& pointer, size_t index) const {
  size_t quote = positions_->value_at(pointer).value_or(0);
  if (!at(pointer).is_string()) return quote;
  return positions_->offset_in_string(quote, index);
}

Json JsonDocument::parse_json() const {
  try {
    return Json::parse(text_);
  } catch (const Json::parse_error& e) {
    // what() is "[json.exception.parse_error.101] parse error at line L, column C: detail";
    // keep the detail and report the position in the file's own terms.
    std::string what = e.what();
    size_t colon = what.find(": ", what.find("parse error"));
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    // After an unexpected string (typically: a missing comma before a key) nlohmann points at
    // its closing quote; the opening quote is where a reader looks.
    if (detail.find("unexpected string literal") != std::string::npos && offset < text_.size() &&
        text_[offset] == '"') {
      while (offset > 0 && !(text_[offset - 1] == '"' && (offset < 2 || text_[offset - 2] != '\\'))) --offset;
      if (offset > 0) --offset;
    }
    fail_offset(offset, "malformed JSON: " + detail);
  }
}

void JsonDocument::check_keys(const std::string& path, const std::vector<std::string>& known,
                              const std::vector<std::string>& required) const {
  const Json& object = path.empty() ? doc_ : at(path);
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail_key(pointer_child(path, key),
               fmt::format("unknown key \"{}\"{}; known keys: {}", key, suggestion(key, known), join_names(known)));
  for (const auto& key : required)
    if (!object.contains(key)) fail(path, fmt::format("missing required key \"{}\"", key));
}

std::string JsonDocument::get_string(const std::string& pointer, bool allow_empty) const {
  const Json& j = at(pointer);
  if (!j.is_string()) fail(pointer, fmt::format("\"{}\" must be a string, not {}", last_key(pointer), j.dump()));
  if (!allow_empty && j.get_ref<const std::string&>().empty())
    fail(pointer, fmt::format("\"{}\" must not be empty", last_key(pointer)));
  return j.get<std::string>();
}

int64_t JsonDocument::get_int(const std::string& pointer, const std::string& what) const {
  const Json& j = at(pointer);
  if (!j.is_number_integer()) fail(pointer, fmt::format("{}: {} is not an integer", what, j.dump()));
  if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))
    fail(pointer, fmt::format("{}: {} does not fit in int64", what, j.dump()));
  return j.get<int64_t>();
}

double JsonDocument::get_number(const std::string& pointer, const std::string& what) const {
  const Json& j = at(pointer);
  if (!j.is_number()) fail(pointer, fmt::format("{}: {} is not a number", what, j.dump()));
  return j.get<double>();
}

const Json& JsonDocument::get_typed(const std::string& pointer, Json::value_t type, const char* type_name) const {
  const Json& j = at(pointer);
  if (j.type() != type)
    fail(pointer, fmt::format("\"{}\" must be {}, not {}", last_key(pointer), type_name, j.type_name()));
  return j;
}

Expr JsonDocument::get_expr_syntax(const std::string& pointer, const std::string& what) const {
  const Json& j = at(pointer);
  if (!j.is_string() && !j.is_number_integer())
    fail(pointer, fmt::format("{} must be an expression string or an integer, not {}", what, j.dump()));
  std::string text = j.is_string() ? j.get<std::string>() : std::to_string(get_int(pointer, what));
  try {
    return Expr::parse(text);
  } catch (const SyntaxError& err) {
    fail_offset(in_string(pointer, err.column() - 1),
                fmt::format("syntax error in {} \"{}\": {}", what, text, err.message()));
  }
}

void JsonDocument::check_names(const Expr& e, const std::string& pointer, const std::string& what,
                               const std::set<std::string>& allowed, const std::vector<std::string>& known) const {
  for (const auto& use : e.name_uses())
    if (!allowed.count(use.name))
      fail_offset(in_string(pointer, use.column - 1),
                  fmt::format("{} uses unknown name \"{}\"{} (known: {})", what, use.name, suggestion(use.name, known),
                              join_names(known)));
}

}  // namespace ktune
