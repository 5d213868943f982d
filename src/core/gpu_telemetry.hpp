// What the GPU's clocks, power and temperature were when a measurement ran, as NVML reports them
// (cuda/nvml.hpp reads it). Plain data, so a results file can carry it next to the times it
// explains: a kernel that "got slower" on a GPU that was power-capping is not a regression.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune::cuda {

// NVML's clocks-event reason bits (nvmlClocksEventReason*, called nvmlClocksThrottleReason*
// before NVML 12.2; same values). Several can be set at once.
namespace clock_event {
inline constexpr uint64_t gpu_idle = 0x1;
inline constexpr uint64_t applications_clocks_setting = 0x2;
inline constexpr uint64_t sw_power_cap = 0x4;
inline constexpr uint64_t hw_slowdown = 0x8;
inline constexpr uint64_t sync_boost = 0x10;
inline constexpr uint64_t sw_thermal_slowdown = 0x20;
inline constexpr uint64_t hw_thermal_slowdown = 0x40;
inline constexpr uint64_t hw_power_brake_slowdown = 0x80;
inline constexpr uint64_t display_clock_setting = 0x100;
inline constexpr uint64_t board_limit = 0x200;   // NVML 13.0+
inline constexpr uint64_t reliability = 0x400;   // NVML 13.0+

// The reasons that mean the GPU ran below the clocks it would otherwise have had, because of
// power, heat or a hardware protection: a time measured under them is slower than the kernel.
// Left out: gpu_idle (nothing was running), applications_clocks_setting and
// display_clock_setting (clocks somebody configured, the same for every candidate), sync_boost
// (clocks held in step with other GPUs on purpose). sw_power_cap is in: large GEMMs on an H100
// routinely hit it, and a candidate timed while capped ran slower than it could have — the
// report should say so rather than hide it.
inline constexpr uint64_t throttling = sw_power_cap | hw_slowdown | sw_thermal_slowdown |
                                       hw_thermal_slowdown | hw_power_brake_slowdown |
                                       board_limit | reliability;
}  // namespace clock_event

// One reading. A field is empty where the GPU does not report it (NVML_ERROR_NOT_SUPPORTED:
// power on some boards, temperature on some virtual GPUs) or the read failed; an empty field is
// "unknown", never 0.
struct GpuTelemetry {
  std::optional<int> sm_clock_mhz;
  std::optional<int> mem_clock_mhz;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;  // the enforced limit, i.e. what the power cap caps to
  std::optional<int> temperature_c;
  std::optional<uint64_t> clock_event_reasons;  // clock_event:: bits

  bool operator==(const GpuTelemetry&) const = default;
};

// Names of the set bits, lowest first: "sw_power_cap", "hw_thermal_slowdown", ...; a bit NVML
// added after this was written reads "unknown_0x800".
std::vector<std::string> reason_names(uint64_t reasons);

// True when any clock_event::throttling bit is set. Unknown bits do not count: we cannot say what
// they mean, and reason_names() still shows them.
bool throttled(uint64_t reasons);

}  // namespace ktune::cuda
