// A benchmark suite: the list of problems `ktune bench` measures, each with its cached best
// configuration against the reference, and the markdown summary of such a run. Suites live in
// suites/*.json and are read from disk; they are not sweep configs (those are configs/*.json).
//
//   {"name": "default", "description": "...",
//    "problems": [{"family": "gemm", "M": 4096, "N": 4096, "K": 4096, "dtype": "fp16",
//                  "layout": "rr", "config": "gemm_mma"}, ...]}
//
// In a problem, "family" and "dtype" are required strings; "config" is optional: the name of a
// built-in sweep config (configs/<name>.json) or a path ending in ".json", relative to the suite
// file; without it the family's default config is used. The other keys come from the family's
// schema (families/family.hpp): its dimensions, integers, all required (M, N, K for gemm), and
// its options, strings, each defaulting as the schema says (gemm's "layout": "rr"). Unknown
// top-level keys, unknown or missing problem keys, a problem the family rejects and a problem
// listed twice are errors.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "store/results.hpp"
#include "core/record.hpp"

namespace ktune {

struct SuiteProblem {
  Problem problem;
  std::string config;  // "" = the family's default sweep config
};

struct Suite {
  std::string name;  // "name", else the file's stem
  std::string description;
  std::filesystem::path base_dir;  // the suite file's folder: relative config paths start here
  std::vector<SuiteProblem> problems;
};

// Parses and checks a suite; `origin` (a path) names it in messages and gives the default name.
// Throws ConfigError("origin: ...") on any bad input, naming the problem by index.
Suite parse_suite(std::string_view text, const std::string& origin);

// Reads `file` and parses it; base_dir is the file's folder.
Suite load_suite(const std::filesystem::path& file);

// Markdown for a bench run (a CI job summary): the device and command, then one row per problem
// with ktune's best and the reference side by side, and the geometric mean of ktune / reference.
// `results` are bench results: each problem's records are the reference ("cublas") and the best
// configuration's measurement ("ktune").
std::string bench_markdown(const Suite& suite, const RunInfo& info, const std::vector<ProblemResult>& results);

}  // namespace ktune
