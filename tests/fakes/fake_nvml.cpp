// A stand-in for libnvidia-ml.so.1, so host tests can drive NvmlSampler without a driver
// (KTUNE_NVML_LIBRARY points at it). It answers like one H100 would, with the quirks the
// sampler must cope with: the enforced power limit is "not supported", only the versioned
// temperature query exists and it checks the struct version, and the clocks-event query only
// exists under its pre-12.2 name. FAKE_NVML_INIT_FAILS and FAKE_NVML_GPU_LOST switch on failures.
// fake_nvml_refcount() lets a test check that every init was matched by a shutdown.
#include <cstdlib>
#include <cstring>

namespace {
int refcount = 0;
int device_storage = 0;
void* const kDevice = &device_storage;

bool env(const char* name) { return std::getenv(name) != nullptr; }
// Error codes from NVML's nvmlReturn_t.
constexpr int kSuccess = 0, kUninitialized = 1, kInvalidArgument = 2, kNotSupported = 3,
              kNotFound = 6, kDriverNotLoaded = 9, kGpuIsLost = 15, kVersionMismatch = 25;

int check(void* device) {
  if (refcount <= 0) return kUninitialized;
  if (device != kDevice) return kInvalidArgument;
  return env("FAKE_NVML_GPU_LOST") ? kGpuIsLost : kSuccess;
}
}  // namespace

extern "C" {

int fake_nvml_refcount() { return refcount; }

int nvmlInit_v2() {
  if (env("FAKE_NVML_INIT_FAILS")) return kDriverNotLoaded;
  ++refcount;
  return kSuccess;
}

int nvmlShutdown() {
  if (refcount <= 0) return kUninitialized;
  --refcount;
  return kSuccess;
}

const char* nvmlErrorString(int r) {
  switch (r) {
    case kSuccess: return "Success";
    case kUninitialized: return "Uninitialized";
    case kInvalidArgument: return "Invalid Argument";
    case kNotSupported: return "Not Supported";
    case kNotFound: return "Not Found";
    case kDriverNotLoaded: return "Driver Not Loaded";
    case kGpuIsLost: return "GPU is lost";
    case kVersionMismatch: return "Argument version mismatch";
    default: return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (refcount <= 0) return kUninitialized;
  if (std::strcmp(bus_id, "00000000:19:00.0") != 0) return kNotFound;
  *device = kDevice;
  return kSuccess;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device) {
  if (refcount <= 0) return kUninitialized;
  if (index != 0) return kInvalidArgument;
  *device = kDevice;
  return kSuccess;
}

int nvmlDeviceGetClockInfo(void* device, int type, unsigned* mhz) {
  if (int r = check(device)) return r;
  if (type == 1) *mhz = 1980;       // NVML_CLOCK_SM
  else if (type == 2) *mhz = 2619;  // NVML_CLOCK_MEM
  else return kInvalidArgument;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned* milliwatts) {
  if (int r = check(device)) return r;
  *milliwatts = 351250;
  return kSuccess;
}

int nvmlDeviceGetEnforcedPowerLimit(void* device, unsigned*) {
  if (int r = check(device)) return r;
  return kNotSupported;
}

struct TemperatureV1 {
  unsigned version;
  int sensor;
  int temperature;
};

int nvmlDeviceGetTemperatureV(void* device, TemperatureV1* t) {
  if (int r = check(device)) return r;
  if (t->version != (sizeof(TemperatureV1) | (1u << 24))) return kVersionMismatch;
  if (t->sensor != 0) return kInvalidArgument;  // NVML_TEMPERATURE_GPU
  t->temperature = 47;
  return kSuccess;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void* device, unsigned long long* reasons) {
  if (int r = check(device)) return r;
  *reasons = 0x4 | 0x40;  // sw_power_cap | hw_thermal_slowdown
  return kSuccess;
}

}  // extern "C"
