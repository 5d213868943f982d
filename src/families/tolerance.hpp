// When an output counts as equal to the reference. Inputs are drawn so the exact output is about
// N(0, 1) whatever the problem size, which is what lets absolute tolerances mean the same thing
// for every shape (docs/verification.md).
#pragma once

#include "core/record.hpp"

namespace ktune {

struct Tolerance {
  double atol = 0;          // elementwise: |out - ref| <= atol + rtol * |ref|
  double rtol = 0;
  double max_norm_rel = 0;  // and ||out - ref|| / ||ref|| <= max_norm_rel
};

// True when nothing is non-finite, no element is outside atol/rtol and the normalized error is
// within max_norm_rel above the output type's floor (ErrorStats::floor_norm_rel: an answer as
// exact as the type allows scores the floor, so a tolerance below it would reject every correct
// kernel). `why` gets the first failed condition.
bool within_tolerance(const ErrorStats&, const Tolerance&, std::string* why = nullptr);

}  // namespace ktune
