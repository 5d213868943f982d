#include "core/gpu_telemetry.hpp"

#include <fmt/format.h>

#include <utility>

namespace ktune::cuda {

std::vector<std::string> reason_names(uint64_t reasons) {
  static constexpr std::pair<uint64_t, const char*> kNames[] = {
      {clock_event::gpu_idle, "gpu_idle"},
      {clock_event::applications_clocks_setting, "applications_clocks_setting"},
      {clock_event::sw_power_cap, "sw_power_cap"},
      {clock_event::hw_slowdown, "hw_slowdown"},
      {clock_event::sync_boost, "sync_boost"},
      {clock_event::sw_thermal_slowdown, "sw_thermal_slowdown"},
      {clock_event::hw_thermal_slowdown, "hw_thermal_slowdown"},
      {clock_event::hw_power_brake_slowdown, "hw_power_brake_slowdown"},
      {clock_event::display_clock_setting, "display_clock_setting"},
      {clock_event::board_limit, "board_limit"},
      {clock_event::reliability, "reliability"},
  };
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    uint64_t mask = uint64_t{1} << bit;
    if (!(reasons & mask)) continue;
    const char* name = nullptr;
    for (const auto& [m, n] : kNames)
      if (m == mask) name = n;
    names.push_back(name ? std::string(name) : fmt::format("unknown_{:#x}", mask));
  }
  return names;
}

bool throttled(uint64_t reasons) { return (reasons & clock_event::throttling) != 0; }

}  // namespace ktune::cuda
