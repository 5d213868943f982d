// Parser for the `ptxas -v` lines of an NVRTC log. The format (CUDA 13.0), one entry:
//   ptxas info    : Compiling entry function '_Z5scaleIfLi128EEvPT_S0_' for 'sm_80'
//   ptxas info    : Function properties for _Z5scaleIfLi128EEvPT_S0_
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 10 registers, used 1 barriers, 512 bytes smem, 364 bytes cmem[0]
// Performance notes come before the entries, e.g.
//   ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; ...
#include "compile/ptxas_report.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {
namespace {

struct FunctionFigures {  // from a "Function properties for X" block
  int stack_frame = 0;
  int spill_stores = 0;
  int spill_loads = 0;
};

struct EntryFigures {  // from the "Used ..." line of a "Compiling entry function" block
  std::string name;
  int registers = -1;
  int static_smem = 0;
  std::optional<int> cumulative_stack;  // present when the entry calls non-inlined functions
};

std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end == text.data()) return std::nullopt;
  return value;
}

// The number written just before `suffix` in `line`: number_before("0 bytes smem", " bytes smem").
std::optional<int> number_before(std::string_view line, std::string_view suffix) {
  size_t at = line.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  return parse_int(line.substr(begin, at - begin));
}

std::optional<int> number_after(std::string_view line, std::string_view prefix) {
  size_t at = line.find(prefix);
  if (at == std::string_view::npos) return std::nullopt;
  return parse_int(line.substr(at + prefix.size()));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool contains_nocase(std::string_view text, std::string_view lowercase_needle) {
  auto it = std::search(text.begin(), text.end(), lowercase_needle.begin(), lowercase_needle.end(),
                        [](char a, char b) {
                          return std::tolower(static_cast<unsigned char>(a)) == b;
                        });
  return it != text.end();
}

// "(C75dd)": the ptxas message range for code it generated worse than asked (wgmma serialized,
// setmaxnreg ignored, warpgroup waits injected, ...).
bool has_c75_code(std::string_view line) {
  for (size_t at = line.find("(C75"); at != std::string_view::npos;
       at = line.find("(C75", at + 1)) {
    if (at + 7 <= line.size() && std::isdigit(static_cast<unsigned char>(line[at + 4])) &&
        std::isdigit(static_cast<unsigned char>(line[at + 5])) && line[at + 6] == ')')
      return true;
  }
  return false;
}

// "ptxas info    : (C7508) Potential ..." -> "(C7508) Potential ...": the prefix says nothing.
std::string_view strip_ptxas_prefix(std::string_view line) {
  line = trim(line);
  if (line.starts_with("ptxas")) {
    size_t colon = line.find(": ");
    if (colon != std::string_view::npos) return trim(line.substr(colon + 2));
  }
  return line;
}

std::string_view quoted_after(std::string_view line, std::string_view prefix) {
  size_t at = line.find(prefix);
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + prefix.size());
  return rest.substr(0, rest.find('\''));
}

}  // namespace

void parse_ptxas_report(std::string_view log, CompileInfo& info) {
  constexpr std::string_view kProperties = "Function properties for ";
  std::vector<EntryFigures> entries;
  std::map<std::string, FunctionFigures, std::less<>> functions;
  std::string properties_of;  // the function whose "Function properties" block is open
  std::vector<std::string> perf_warnings;

  while (!log.empty()) {
    size_t eol = log.find('\n');
    std::string_view line = log.substr(0, eol);
    log.remove_prefix(eol == std::string_view::npos ? log.size() : eol + 1);

    if (contains_nocase(line, "potential performance loss") || has_c75_code(line)) {
      perf_warnings.emplace_back(strip_ptxas_prefix(line));
    } else if (auto name = quoted_after(line, "Compiling entry function '"); !name.empty()) {
      entries.emplace_back().name = std::string(name);
    } else if (size_t at = line.find(kProperties); at != std::string_view::npos) {
      properties_of = std::string(trim(line.substr(at + kProperties.size())));
    } else if (line.find(" bytes stack frame") != std::string_view::npos) {
      FunctionFigures& f = functions[properties_of];
      f.stack_frame = number_before(line, " bytes stack frame").value_or(0);
      f.spill_stores = number_before(line, " bytes spill stores").value_or(0);
      f.spill_loads = number_before(line, " bytes spill loads").value_or(0);
    } else if (auto registers = number_after(line, "Used ");
               registers && !entries.empty() && line.find(" registers") != std::string_view::npos) {
      EntryFigures& e = entries.back();
      e.registers = *registers;
      e.static_smem = number_before(line, " bytes smem").value_or(0);
      e.cumulative_stack = number_before(line, " bytes cumulative stack size");
    }
  }

  // Functions that are not entries are non-inlined callees: their spills happen inside a kernel.
  FunctionFigures callees;
  for (const auto& [name, f] : functions) {
    bool is_entry = std::any_of(entries.begin(), entries.end(),
                                [&](const EntryFigures& e) { return e.name == name; });
    if (is_entry) continue;
    callees.spill_stores += f.spill_stores;
    callees.spill_loads += f.spill_loads;
  }

  std::vector<const EntryFigures*> chosen;
  for (const auto& e : entries)
    if (e.name == info.lowered_name) chosen.push_back(&e);
  if (chosen.empty())
    for (const auto& e : entries) chosen.push_back(&e);

  info.registers = -1;
  info.static_smem = info.stack_frame = 0;
  info.spill_stores = info.spill_loads = 0;
  for (const EntryFigures* e : chosen) {
    auto own = functions.find(e->name);
    FunctionFigures f = own == functions.end() ? FunctionFigures{} : own->second;
    info.registers = std::max(info.registers, e->registers);
    info.static_smem = std::max(info.static_smem, e->static_smem);
    // The cumulative size includes the frames of callees, which is what the kernel really needs.
    info.stack_frame = std::max(info.stack_frame, e->cumulative_stack.value_or(f.stack_frame));
    info.spill_stores = std::max(info.spill_stores, f.spill_stores + callees.spill_stores);
    info.spill_loads = std::max(info.spill_loads, f.spill_loads + callees.spill_loads);
  }
  info.perf_warnings = std::move(perf_warnings);
}

}  // namespace ktune
