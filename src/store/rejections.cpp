#include "store/rejections.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace ktune {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The reason with every run of digits (and the point or exponent inside a number) as '#'.
std::string shape_of(const std::string& reason) {
  std::string out;
  for (size_t i = 0; i < reason.size(); ++i) {
    const auto c = static_cast<unsigned char>(reason[i]);
    if (!std::isdigit(c)) {
      out += reason[i];
      continue;
    }
    while (i + 1 < reason.size() && (std::isdigit(static_cast<unsigned char>(reason[i + 1])) ||
                                     reason[i + 1] == '.' || reason[i + 1] == 'e' || reason[i + 1] == '-'))
      ++i;
    out += '#';
  }
  return out;
}

}  // namespace

std::vector<Rejection> top_rejections(const ProblemResult& r, size_t most) {
  std::map<std::pair<std::string, std::string>, Rejection> groups;
  auto add = [&](const std::string& disposition, const std::string& reason, int64_t count) {
    const std::string line = first_line(reason);
    Rejection& g = groups[{disposition, shape_of(line)}];
    if (g.count == 0) g = {disposition, line, 0};
    g.count += count;
  };
  for (const RuledOut& ruled : r.ruled_out) add(to_string(Disposition::invalid), ruled.reason, ruled.count);
  for (const CandidateRecord& rec : r.records) {
    // Passed is no rejection; not run (a guided search's unvisited candidates) says nothing.
    if (rec.is_baseline() || rec.disposition == Disposition::passed || rec.disposition == Disposition::not_run)
      continue;
    add(to_string(rec.disposition), rec.reason, 1);
  }
  std::vector<Rejection> out;
  for (auto& [key, g] : groups) out.push_back(std::move(g));
  std::stable_sort(out.begin(), out.end(), [](const Rejection& a, const Rejection& b) { return a.count > b.count; });
  if (out.size() > most) out.resize(most);
  return out;
}

}  // namespace ktune
