// The body shared by `ktune gemm` and `ktune sweep`: tune each problem in turn, print its table,
// and rewrite the result files after every problem so a later failure loses nothing.
#pragma once

#include <vector>

#include "cli/common.hpp"

namespace ktune::cli {

int run_tuning(const std::vector<SweepConfig>& configs, const std::vector<Problem>& problems, const CommonFlags& common,
               const MeasureFlags& measure, const std::string& stem_prefix);

}  // namespace ktune::cli
