// Kernel sources and sweep configs compiled into the binary (cmake/embed.cmake), so ktune works
// from any directory. Keys are paths relative to the repository root: "kernels/gemm_mma.cu".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct EmbeddedFile {
  std::string_view path;
  std::string_view text;
};

const std::vector<EmbeddedFile>& embedded_files();

// The embedded file at `path` ("kernels/x.cu"), or nullopt.
std::optional<std::string_view> find_embedded(std::string_view path);

}  // namespace ktune
