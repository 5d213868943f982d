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

// The headers a kernel read from `file` may include by name: ktune's own (kernels/*.cuh) and the
// .cuh, .h and .hpp files in the kernel's folder, which win over ktune's of the same name. They
// travel as NVRTC headers, not an include path, so their text is in every cache key.
std::vector<std::pair<std::string, std::string>> headers_for(const std::filesystem::path& file);

}  // namespace ktune
