// Shared by the GPU tests: skip cleanly where there is no GPU, run the ktune binary, scratch dirs.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "cuda/driver.hpp"

#ifndef KTUNE_BINARY
#define KTUNE_BINARY "ktune"
#endif
#ifndef KTUNE_SOURCE_DIR
#define KTUNE_SOURCE_DIR "."
#endif

namespace ktune::test {

#define KTUNE_REQUIRE_GPU()                                    \
  do {                                                         \
    std::string why_;                                          \
    if (!::ktune::cuda::gpu_available(&why_)) GTEST_SKIP() << "no GPU: " << why_; \
  } while (0)

inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("ktune-gpu-test-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `ktune <args>`, output into `log`; returns the exit status.
inline int run_ktune(const std::string& args, const std::filesystem::path& log) {
  std::string cmd = std::string(KTUNE_BINARY) + " " + args + " > " + log.string() + " 2>&1";
  int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace ktune::test
