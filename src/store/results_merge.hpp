// Merging results files, as the shards of a job array write them (one each): one file with every
// problem, ordered by problem so that the order of the inputs does not matter. A problem found in
// two inputs, or inputs measured on different GPU models (unless asked for), are refused: shards
// of one suite are disjoint, and ratios from different GPUs do not belong in one table.
#pragma once

#include <string>
#include <vector>

#include "store/results.hpp"

namespace ktune {

struct ResultsInput {
  std::string origin;  // the file, for messages
  RunInfo info;
  std::vector<ProblemResult> problems;
};

struct ResultsMerge {
  RunInfo info;  // the earliest-started input's header
  std::vector<ProblemResult> problems;
};

ResultsMerge merge_results(const std::vector<ResultsInput>& inputs, bool allow_mixed_devices);

}  // namespace ktune
