// `--gpus all|0,1,...`: which GPUs of this host a bench spreads its problems over, and how each
// worker is pointed at its GPU. Workers see one GPU each through CUDA_VISIBLE_DEVICES: GPU i is
// the i-th entry of this process's own CUDA_VISIBLE_DEVICES where one is set (so `--gpus 0,1`
// under CUDA_VISIBLE_DEVICES=2,3 means GPUs 2 and 3, as CUDA itself would number them), else i.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

struct GpuList {
  bool all = false;
  std::vector<int> indices;  // when not all; a GPU may be listed twice (two workers share it)
};

// "all", or a comma-separated list of GPU indices; anything else throws ConfigError.
GpuList parse_gpu_list(std::string_view text);

// The GPUs to use: `list`'s indices, or 0..visible-1 for "all". ConfigError for an index not
// below `visible`.
std::vector<int> resolve_gpus(const GpuList& list, int visible);

// The CUDA_VISIBLE_DEVICES value that shows a worker GPU `index` only, given this process's own
// setting (nullopt: unset). ConfigError when the setting lists fewer GPUs.
std::string visible_devices_for(int index, const std::optional<std::string>& parent_setting);

}  // namespace ktune
