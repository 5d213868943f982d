#include "compile/kernel_source.hpp"

#include <fmt/format.h>

#include <map>

#include "compile/embedded.hpp"
#include "space/sweep_config.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

std::vector<std::pair<std::string, std::string>> embedded_headers() {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.starts_with("kernels/") && f.path.ends_with(".cuh")) {
      // Kernels include their headers by file name: #include "common.cuh".
      headers.emplace_back(std::string(f.path.substr(8)), std::string(f.text));
    }
  }
  return headers;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> headers_for(const std::filesystem::path& file) {
  std::map<std::string, std::string> by_name;
  for (auto& [name, text] : embedded_headers()) by_name[name] = std::move(text);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::absolute(file).parent_path(), ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".cuh" || ext == ".h" || ext == ".hpp"))
      by_name[entry.path().filename().string()] = read_file(entry.path());
  }
  return {by_name.begin(), by_name.end()};
}

KernelSource resolve_kernel_source(const SweepConfig& config, const std::filesystem::path& override_path) {
  KernelSource source;
  source.headers = embedded_headers();
  if (!override_path.empty()) {
    if (!std::filesystem::exists(override_path))
      throw ConfigError(fmt::format("--kernel {}: no such file", override_path.string()));
    source.name = override_path.string();
    source.text = read_file(override_path);
    source.headers = headers_for(override_path);
    return source;
  }
  if (!config.base_dir.empty()) {
    std::filesystem::path beside = config.base_dir / config.kernel_path;
    if (std::filesystem::exists(beside)) {
      source.name = config.kernel_path;
      source.text = read_file(beside);
      source.headers = headers_for(beside);
      return source;
    }
  }
  if (auto text = find_embedded(config.kernel_path)) {
    source.name = config.kernel_path;
    source.text = std::string(*text);
    return source;
  }
  throw ConfigError(fmt::format("{}{}kernel '{}' is neither a file next to the config ({}) nor built into ktune",
                                config.kernel_where, config.kernel_where.empty() ? "" : ": ", config.kernel_path,
                                config.base_dir.empty() ? "embedded" : config.base_dir.string()));
}

}  // namespace ktune
