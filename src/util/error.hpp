// One error mechanism for the whole tool: throw ktune::Error (or a subclass) with a message a
// user can act on; only main() turns it into an exit code. Inside a sweep, each candidate's
// failure becomes a Disposition instead of an escaped exception.
#pragma once

#include <stdexcept>
#include <string>

namespace ktune {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad user input: a config file, a command-line value, a cache/result file we cannot read.
// The message starts with "file:line:col: " when a position is known.
struct ConfigError : Error {
  using Error::Error;
};

// A GPU is needed and none (or no driver) is there.
struct NoGpuError : Error {
  using Error::Error;
};

}  // namespace ktune
