// Why a problem's candidates failed, most common first: what a user reads when nothing passed
// (`ktune bench` and every tuning command print it; docs/verification.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/results.hpp"

namespace ktune {

struct Rejection {
  std::string disposition;  // "incorrect", "compile_failed", ... ; "invalid" for a constraint
  std::string example;      // one whole reason of the group (its first line)
  int64_t count = 0;
};

// The candidates of `r` that did not pass, grouped by disposition and reason with the reason's
// numbers blanked ("normalized error 0.00259 > 0.001" and "... 0.00262 > 0.001" are one group),
// constraint rule-outs by their constraint; the `most` largest groups, largest first.
std::vector<Rejection> top_rejections(const ProblemResult& r, size_t most);

}  // namespace ktune
