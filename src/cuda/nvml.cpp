#include "cuda/nvml.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/optional_library.hpp"

namespace ktune::cuda {

namespace nv = detail::nvml;

namespace detail {
struct NvmlApi {
  nv::InitFn init = nullptr;
  nv::ShutdownFn shutdown = nullptr;
  nv::ErrorStringFn error_string = nullptr;
  nv::GetHandleByPciBusIdFn handle_by_pci_bus_id = nullptr;
  nv::GetHandleByIndexFn handle_by_index = nullptr;
  nv::GetClockInfoFn clock_info = nullptr;
  nv::GetPowerUsageFn power_usage = nullptr;
  nv::GetEnforcedPowerLimitFn enforced_power_limit = nullptr;
  // Optional: the field stays empty where neither spelling exists.
  nv::GetTemperatureVFn temperature_v = nullptr;
  nv::GetTemperatureFn temperature = nullptr;
  nv::GetClocksEventReasonsFn clocks_event_reasons = nullptr;

  std::string library;
  std::string name(nv::Return r) const {
    const char* s = error_string ? error_string(r) : nullptr;
    return s ? fmt::format("{} ({})", s, r) : fmt::format("NVML error {}", r);
  }
};
}  // namespace detail

namespace {

using detail::NvmlApi;

struct Loaded {
  NvmlApi api;
  std::string error;  // empty when api is usable
};

std::string not_available(const std::string& reason) { return "NVML is not available: " + reason; }

Loaded load(const std::string& library) {
  Loaded l;
  l.api.library = library;
  OptionalLibrary lib("NVML", library, "KTUNE_NVML_LIBRARY",
                      "it comes with the NVIDIA driver: is the driver installed?");
  auto required = [&](const char* name, auto& fn) { lib.require(name, fn, "driver too old?"); };
  required("nvmlInit_v2", l.api.init);
  required("nvmlShutdown", l.api.shutdown);
  required("nvmlErrorString", l.api.error_string);
  required("nvmlDeviceGetHandleByPciBusId_v2", l.api.handle_by_pci_bus_id);
  required("nvmlDeviceGetHandleByIndex_v2", l.api.handle_by_index);
  required("nvmlDeviceGetClockInfo", l.api.clock_info);
  required("nvmlDeviceGetPowerUsage", l.api.power_usage);
  required("nvmlDeviceGetEnforcedPowerLimit", l.api.enforced_power_limit);
  // The versioned temperature query is the one NVML keeps (the plain one is deprecated in 13.0,
  // removed in 14.0); the clocks-event query was renamed from "ThrottleReasons" in 12.2.
  l.api.temperature_v = lib.optional<nv::GetTemperatureVFn>("nvmlDeviceGetTemperatureV");
  l.api.temperature = lib.optional<nv::GetTemperatureFn>("nvmlDeviceGetTemperature");
  l.api.clocks_event_reasons = lib.optional<nv::GetClocksEventReasonsFn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!l.api.clocks_event_reasons)
    l.api.clocks_event_reasons =
        lib.optional<nv::GetClocksEventReasonsFn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  l.error = lib.error();
  return l;
}

const Loaded& loaded() { return load_once_per_name<Loaded>(nvml_library_name(), load); }

// Loads and initializes NVML, or throws ktune::Error saying why not. The caller owes a shutdown.
const NvmlApi& init() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw Error(l.error);
  nv::Return r = l.api.init();
  if (r != nv::kSuccess)
    throw Error(not_available(fmt::format("nvmlInit_v2 failed: {}", l.api.name(r))));
  return l.api;
}

void shutdown(const NvmlApi& api) {
  nv::Return r = api.shutdown();
  if (r != nv::kSuccess)
    fprintf(stderr, "ktune: warning: nvmlShutdown failed: %s\n", api.name(r).c_str());
}

}  // namespace

std::string nvml_library_name() {
  const char* env = std::getenv("KTUNE_NVML_LIBRARY");
  return env && *env ? env : "libnvidia-ml.so.1";
}

bool nvml_available(std::string* why) {
  try {
    shutdown(init());
    if (why) why->clear();
    return true;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return false;
  }
}

NvmlSampler NvmlSampler::for_pci_bus_id(const std::string& pci_bus_id) {
  const NvmlApi& api = init();
  nv::Device device = nullptr;
  nv::Return r = api.handle_by_pci_bus_id(pci_bus_id.c_str(), &device);
  if (r != nv::kSuccess) {
    shutdown(api);
    throw Error(fmt::format("NVML has no GPU with PCI bus id \"{}\": {}", pci_bus_id, api.name(r)));
  }
  return NvmlSampler(&api, device, "GPU " + pci_bus_id);
}

NvmlSampler NvmlSampler::for_index(unsigned index) {
  const NvmlApi& api = init();
  nv::Device device = nullptr;
  nv::Return r = api.handle_by_index(index, &device);
  if (r != nv::kSuccess) {
    shutdown(api);
    throw Error(fmt::format("NVML has no GPU with index {}: {}", index, api.name(r)));
  }
  return NvmlSampler(&api, device, fmt::format("GPU index {}", index));
}

NvmlSampler::~NvmlSampler() {
  if (api_) shutdown(*api_);
}

NvmlSampler::NvmlSampler(NvmlSampler&& o) noexcept
    : api_(std::exchange(o.api_, nullptr)), device_(o.device_), what_(std::move(o.what_)) {}

NvmlSampler& NvmlSampler::operator=(NvmlSampler&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(device_, o.device_);
  std::swap(what_, o.what_);
  return *this;
}

std::optional<GpuTelemetry> NvmlSampler::sample(std::string* why) const {
  if (!api_) {
    if (why) *why = "sample() on a moved-from NvmlSampler";
    return std::nullopt;
  }
  const NvmlApi& api = *api_;
  std::vector<std::string> failures;
  bool any = false;
  // Not supported is an answer (the field stays empty); anything else is worth reporting.
  auto read = [&](const char* query, nv::Return r, auto&& store) {
    if (r == nv::kSuccess) {
      store();
      any = true;
    } else if (r != nv::kErrorNotSupported) {
      failures.push_back(fmt::format("{}: {}", query, api.name(r)));
    }
  };

  GpuTelemetry t;
  unsigned int value = 0;
  read("nvmlDeviceGetClockInfo(SM)", api.clock_info(device_, nv::kClockSm, &value),
       [&] { t.sm_clock_mhz = static_cast<int>(value); });
  read("nvmlDeviceGetClockInfo(MEM)", api.clock_info(device_, nv::kClockMem, &value),
       [&] { t.mem_clock_mhz = static_cast<int>(value); });
  read("nvmlDeviceGetPowerUsage", api.power_usage(device_, &value),
       [&] { t.power_w = value / 1000.0; });
  read("nvmlDeviceGetEnforcedPowerLimit", api.enforced_power_limit(device_, &value),
       [&] { t.power_limit_w = value / 1000.0; });

  nv::Return r = nv::kErrorNotSupported;
  if (api.temperature_v) {
    nv::TemperatureV1 temp{nv::kTemperatureV1Version, nv::kTemperatureGpu, 0};
    r = api.temperature_v(device_, &temp);
    if (r == nv::kSuccess) value = static_cast<unsigned int>(temp.temperature);
  }
  if (r != nv::kSuccess && api.temperature) r = api.temperature(device_, nv::kTemperatureGpu, &value);
  read("nvmlDeviceGetTemperature", r, [&] { t.temperature_c = static_cast<int>(value); });

  if (api.clocks_event_reasons) {
    unsigned long long reasons = 0;
    read("nvmlDeviceGetCurrentClocksEventReasons", api.clocks_event_reasons(device_, &reasons),
         [&] { t.clock_event_reasons = reasons; });
  }

  if (why) {
    why->clear();
    for (const auto& f : failures) *why += (why->empty() ? "" : "; ") + f;
  }
  if (!any) {
    if (why && why->empty()) *why = what_ + " reports none of clocks, power, temperature";
    return std::nullopt;
  }
  return t;
}

}  // namespace ktune::cuda
