#include "families/tolerance.hpp"

#include <fmt/format.h>

namespace ktune {

bool within_tolerance(const ErrorStats& e, const Tolerance& t, std::string* why) {
  std::string reason;
  if (e.nonfinite > 0)
    reason = fmt::format("{} non-finite outputs (unwritten or overflowed)", e.nonfinite);
  else if (e.mismatches > 0)
    reason = fmt::format("{} elements outside atol={:g} rtol={:g} (max abs err {:.3g})", e.mismatches,
                         t.atol, t.rtol, e.max_abs);
  else if (!(e.norm_rel <= t.max_norm_rel + e.floor_norm_rel))
    reason = e.floor_norm_rel > 0
                 ? fmt::format("normalized error {:.3g} > {:g} + the output type's floor {:.3g}", e.norm_rel,
                               t.max_norm_rel, e.floor_norm_rel)
                 : fmt::format("normalized error {:.3g} > {:g}", e.norm_rel, t.max_norm_rel);
  if (why) *why = reason;
  return reason.empty();
}

}  // namespace ktune
