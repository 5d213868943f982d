// NVML, the driver's monitoring library, for telemetry next to measurements: SM and memory
// clocks, power, temperature and why the clocks are where they are. Loaded with dlopen on first
// use and never linked, so ktune starts, shows help and compiles kernels where there is no driver;
// there, NVML's absence is a message, not a crash. Read-only: ktune never changes clocks or power
// limits (that needs root and would outlive the process).
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "cuda/detail/nvml_abi.hpp"
#include "core/gpu_telemetry.hpp"

namespace ktune::cuda {

namespace detail {
struct NvmlApi;
}

// The library ktune loads: $KTUNE_NVML_LIBRARY when set (a path or a soname; tests point it at a
// file that does not exist), else libnvidia-ml.so.1, which the driver installs (the unversioned
// libnvidia-ml.so is only in development packages).
std::string nvml_library_name();

// True when NVML loads, has the functions ktune needs and initializes (i.e. a driver answers).
// Never throws; `why` gets "NVML is not available: ..." when it cannot. Each call does an
// nvmlInit/nvmlShutdown pair (milliseconds): ask once, not per sample.
bool nvml_available(std::string* why = nullptr);

// Reads one GPU's telemetry. NVML is initialized and the device looked up once, at construction;
// sample() is then a handful of cheap queries and may be called from any thread.
class NvmlSampler {
 public:
  // The GPU with this PCI bus id, as cudaDeviceGetPCIBusId writes it ("0000:19:00.0"). Prefer
  // this to an index: CUDA's numbering differs from NVML's under CUDA_VISIBLE_DEVICES or
  // CUDA_DEVICE_ORDER, the bus id does not. Throws ktune::Error when NVML is not available or has
  // no such GPU.
  static NvmlSampler for_pci_bus_id(const std::string& pci_bus_id);
  // NVML's own index (nvidia-smi's numbering). Throws like for_pci_bus_id.
  static NvmlSampler for_index(unsigned index);

  ~NvmlSampler();  // nvmlShutdown; warns, never throws
  // move-only
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  NvmlSampler(NvmlSampler&& o) noexcept;
  NvmlSampler& operator=(NvmlSampler&& o) noexcept;

  // One reading. Fields the GPU does not report stay empty. Empty (with `why` saying what each
  // query answered) only when no field at all could be read, e.g. the GPU fell off the bus.
  std::optional<GpuTelemetry> sample(std::string* why = nullptr) const;

  // What was opened: "GPU 0000:19:00.0" or "GPU index 0", for messages.
  const std::string& what() const { return what_; }

 private:
  NvmlSampler(const detail::NvmlApi* api, detail::nvml::Device device, std::string what)
      : api_(api), device_(device), what_(std::move(what)) {}
  const detail::NvmlApi* api_ = nullptr;  // nullptr once moved from: no shutdown owed
  detail::nvml::Device device_ = nullptr;
  std::string what_;
};

}  // namespace ktune::cuda
