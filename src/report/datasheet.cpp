// The datasheet table; see datasheet.hpp.
#include "report/datasheet.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace ktune {
namespace {

struct Sheet {
  const char* label;
  const char* name_has;      // the device name contains this...
  const char* name_has_too;  // ...and this ("" = nothing more)
  double gbps, fp16, bf16, tf32, fp8;  // fp8 0: no fp8 tensor cores
};

// NVIDIA's published dense (non-sparse) tensor-core peaks and HBM bandwidths.
constexpr Sheet kSheets[] = {
    {"NVIDIA H100 SXM datasheet", "h100", "", 3350, 989, 989, 494, 1979},
    {"NVIDIA H200 SXM datasheet", "h200", "", 4800, 989, 989, 494, 1979},
    {"NVIDIA A100 80GB SXM datasheet", "a100", "80gb", 2000, 312, 312, 156, 0},
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::optional<Ceilings> datasheet_ceilings(const DeviceInfo& device) {
  const std::string name = lower(device.name);
  if (name.find("pcie") != std::string::npos || name.find("nvl") != std::string::npos) return std::nullopt;
  for (const Sheet& s : kSheets) {
    if (name.find(s.name_has) == std::string::npos || name.find(s.name_has_too) == std::string::npos) continue;
    Ceilings c;
    c.source = "datasheet";
    c.label = s.label;
    c.copy_gbps = s.gbps;
    c.tflops = {{"fp16", s.fp16}, {"bf16", s.bf16}, {"fp32", s.tf32}};
    if (s.fp8 > 0) c.tflops["fp8"] = s.fp8;
    return c;
  }
  return std::nullopt;
}

}  // namespace ktune
