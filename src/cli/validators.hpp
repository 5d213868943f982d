// A check for the command line's numbers that several subcommands share.
#pragma once
#include <CLI/CLI.hpp>

namespace ktune::cli {

// A number at least `low` (above it when `strict`), with a message a person can act on: CLI11's
// own range validators print their limits at full precision, a 300-digit number for "positive",
// and an unsigned option takes "-1" as the largest value without a word.
CLI::Validator at_least(double low, bool strict = false);

}  // namespace ktune::cli
