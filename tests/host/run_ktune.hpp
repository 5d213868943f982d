// This build's ktune run as a user runs it, for the tests of the command line: through a shell,
// stdout and stderr together, with the exit code.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif

namespace ktune::test {

struct Ran {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

// A shell command line, stdout and stderr together.
inline Ran run_command(const std::string& command) {
  Ran ran;
  FILE* pipe = popen(("(" + command + ") 2>&1").c_str(), "r");
  if (!pipe) return ran;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) ran.output.append(buf.data(), n);
  const int status = pclose(pipe);
  ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ran;
}

// `ktune ARGS`, after `env` (VAR=value ...) and in `dir` when given.
inline Ran run_ktune(const std::string& args, const std::string& env = "", const std::string& dir = "") {
  std::string command = env + " " + KTUNE_BINARY + " " + args;
  if (!dir.empty()) command = "cd '" + dir + "' && " + command;
  return run_command(command);
}

}  // namespace ktune::test
