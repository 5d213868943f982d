#include "scale/gpu_list.hpp"

#include <fmt/format.h>

#include <charconv>

#include "util/error.hpp"

namespace ktune {
namespace {

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

GpuList parse_gpu_list(std::string_view text) {
  GpuList list;
  if (text == "all") {
    list.all = true;
    return list;
  }
  for (const std::string& item : split_commas(text)) {
    int value = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 0)
      throw ConfigError(fmt::format("--gpus {}: '{}' is not a GPU index; give all or indices such as 0,1", text, item));
    list.indices.push_back(value);
  }
  return list;
}

std::vector<int> resolve_gpus(const GpuList& list, int visible) {
  if (list.all) {
    std::vector<int> all;
    for (int i = 0; i < visible; ++i) all.push_back(i);
    return all;
  }
  for (int i : list.indices)
    if (i >= visible)
      throw ConfigError(fmt::format("--gpus: GPU {} does not exist; this host shows {} GPU{}", i, visible,
                                    visible == 1 ? "" : "s"));
  return list.indices;
}

std::string visible_devices_for(int index, const std::optional<std::string>& parent_setting) {
  if (!parent_setting) return std::to_string(index);
  const std::vector<std::string> entries = split_commas(*parent_setting);
  if (index < 0 || static_cast<size_t>(index) >= entries.size() || entries[static_cast<size_t>(index)].empty())
    throw ConfigError(fmt::format("--gpus: GPU {} is not among CUDA_VISIBLE_DEVICES={}", index, *parent_setting));
  return entries[static_cast<size_t>(index)];
}

}  // namespace ktune
