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

// A shell snippet for the tests of a stopped run: an offline compile of a few hundred candidates
// (minutes on two cores) from the cache folder `cache`, stdout into `out`; once `out` holds
// anything (checked every 2 ms, for a minute at most) and `delay` seconds more, SIGTERM; then
// "stopped STATUS" on the snippet's output, STATUS as the shell's `wait` gives it.
inline std::string stopped_compile(const std::string& out, const std::string& cache, const std::string& delay = "0") {
  return std::string(KTUNE_BINARY) +
         " compile layernorm --rows 4096 --cols 5001 --dtype fp16 -v --no-progress --jobs 1 --cache-dir '" + cache +
         "' > '" + out + "' 2>/dev/null & pid=$!; for i in $(seq 30000); do [ -s '" + out +
         "' ] && break; sleep 0.002; done; sleep " + delay + "; kill -TERM $pid; wait $pid; echo \"stopped $?\"";
}

}  // namespace ktune::test
