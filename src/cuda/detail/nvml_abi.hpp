// The few NVML types, constants and function signatures ktune uses, declared here because the
// toolkit ships no nvml.h (it comes with the driver's development files, which build machines
// lack). They follow NVML's stable C ABI as documented in the NVML API reference
// (docs.nvidia.com/deploy/nvml-api): enum values and struct layouts there do not change between
// driver releases; new entry points get a new suffix (_v2, ...V) instead. Everything here is
// read-only: ktune never sets clocks or power limits.
#pragma once

#include <cstdint>

namespace ktune::cuda::detail::nvml {

using Return = int;             // nvmlReturn_t (an int-sized C enum)
using Device = struct Device_*;  // nvmlDevice_t (opaque pointer)

inline constexpr Return kSuccess = 0;            // NVML_SUCCESS
inline constexpr Return kErrorNotSupported = 3;   // NVML_ERROR_NOT_SUPPORTED
inline constexpr Return kErrorDeprecated = 26;    // NVML_ERROR_DEPRECATED: a removed function

// nvmlClockType_t
inline constexpr int kClockSm = 1;   // NVML_CLOCK_SM
inline constexpr int kClockMem = 2;  // NVML_CLOCK_MEM
// nvmlTemperatureSensors_t
inline constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU

// nvmlTemperature_v1_t, the argument of nvmlDeviceGetTemperatureV (NVML 12.x+; the unversioned
// nvmlDeviceGetTemperature is deprecated in 13.0 and goes away in 14.0).
struct TemperatureV1 {
  unsigned int version;
  int sensor_type;
  int temperature;
};
// NVML_STRUCT_VERSION(Temperature, 1): the struct's size with the version in the top byte.
inline constexpr unsigned int kTemperatureV1Version =
    static_cast<unsigned int>(sizeof(TemperatureV1)) | (1u << 24);
static_assert(sizeof(TemperatureV1) == 12, "nvmlTemperature_v1_t is three 4-byte fields");

using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using GetHandleByPciBusIdFn = Return (*)(const char* pci_bus_id, Device* device);
using GetHandleByIndexFn = Return (*)(unsigned int index, Device* device);
using GetClockInfoFn = Return (*)(Device, int clock_type, unsigned int* mhz);
using GetPowerUsageFn = Return (*)(Device, unsigned int* milliwatts);
using GetEnforcedPowerLimitFn = Return (*)(Device, unsigned int* milliwatts);
using GetTemperatureFn = Return (*)(Device, int sensor, unsigned int* celsius);
using GetTemperatureVFn = Return (*)(Device, TemperatureV1* temperature);
using GetClocksEventReasonsFn = Return (*)(Device, unsigned long long* reasons);

}  // namespace ktune::cuda::detail::nvml
