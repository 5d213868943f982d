// Where a sweep's kernel text comes from: a file next to the config (or given with --kernel),
// else the copy embedded in the binary. Headers under kernels/ (*.cuh) are always offered to NVRTC.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ktune {

struct SweepConfig;

struct KernelSource {
  std::string name;  // what messages and the cache key call it
  std::string text;
  std::vector<std::pair<std::string, std::string>> headers;
};

// `override_path` (from --kernel) wins when not empty. Throws ConfigError when nothing is found.
KernelSource resolve_kernel_source(const SweepConfig& config, const std::filesystem::path& override_path = {});

}  // namespace ktune
