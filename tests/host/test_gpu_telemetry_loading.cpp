// The optional GPU libraries, on a host with no driver: NVML and CUPTI are dlopen'd on first use,
// and their absence (or a wrong library) is a ktune::Error with a message naming what is missing,
// never a crash. Also the pure parts: clocks-event reasons, GpuTelemetry's JSON, and splitting
// CUPTI activity records into per-sample kernel times. NvmlSampler itself runs against
// tests/fakes/fake_nvml.cpp, a stand-in library that answers like a GPU would.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <stdlib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "measure/kernel_samples.hpp"
#include "cuda/cupti_timer.hpp"
#include "core/gpu_telemetry.hpp"
#include "cuda/nvml.hpp"
#include "store/telemetry_json.hpp"
#include "loading_test_support.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

using test::error_of;
using test::loadable;
using test::ScopedEnv;

// ---- NVML loading ----

TEST(NvmlLoading, DefaultLibraryMissingIsAMessageNamingIt) {
  ScopedEnv env("KTUNE_NVML_LIBRARY", std::nullopt);
  EXPECT_EQ(cuda::nvml_library_name(), "libnvidia-ml.so.1");
  std::string why = "stale";
  bool available = cuda::nvml_available(&why);
  if (loadable("libnvidia-ml.so.1")) {
    // A driver is installed: whatever the answer, it must be consistent.
    EXPECT_EQ(available, why.empty()) << why;
    return;
  }
  EXPECT_FALSE(available);
  EXPECT_CONTAINS(why, "NVML is not available: ");
  EXPECT_CONTAINS(why, "libnvidia-ml.so.1");
  EXPECT_CONTAINS(why, "NVIDIA driver");
  EXPECT_EQ(error_of([] { cuda::NvmlSampler::for_index(0); }), why);
  EXPECT_EQ(error_of([] { cuda::NvmlSampler::for_pci_bus_id("00000000:19:00.0"); }), why);
}

TEST(NvmlLoading, OverrideToAMissingFileIsAMessageNamingIt) {
  ScopedEnv env("KTUNE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1");
  std::string why;
  EXPECT_FALSE(cuda::nvml_available(&why));
  EXPECT_CONTAINS(why, "NVML is not available: /nonexistent/libnvidia-ml.so.1");
  EXPECT_CONTAINS(why, "KTUNE_NVML_LIBRARY");
  EXPECT_EQ(error_of([] { cuda::NvmlSampler::for_index(0); }), why);
}

TEST(NvmlLoading, ALibraryWithoutNvmlIsAMessage) {
  ScopedEnv env("KTUNE_NVML_LIBRARY", "libm.so.6");
  std::string why;
  EXPECT_FALSE(cuda::nvml_available(&why));
  EXPECT_CONTAINS(why, "libm.so.6 has no nvmlInit_v2");
}

// ---- NvmlSampler against the fake library ----

#ifdef KTUNE_FAKE_NVML
class FakeNvml : public ::testing::Test {
 protected:
  // The same path dlopen'd again gives the handle the sampler uses, so its refcount is NVML's.
  static int refcount() {
    void* h = dlopen(KTUNE_FAKE_NVML, RTLD_NOW | RTLD_LOCAL);
    auto fn = h ? reinterpret_cast<int (*)()>(dlsym(h, "fake_nvml_refcount")) : nullptr;
    if (!fn) ADD_FAILURE() << "cannot load " << KTUNE_FAKE_NVML << ": " << dlerror();
    return fn ? fn() : -1;
  }
  ScopedEnv env_{"KTUNE_NVML_LIBRARY", KTUNE_FAKE_NVML};
};

TEST_F(FakeNvml, SamplesWhatTheGpuReportsAndLeavesTheRestEmpty) {
  std::string why = "stale";
  ASSERT_TRUE(cuda::nvml_available(&why)) << why;
  EXPECT_EQ(why, "");
  auto sampler = cuda::NvmlSampler::for_pci_bus_id("00000000:19:00.0");
  EXPECT_EQ(sampler.what(), "GPU 00000000:19:00.0");
  auto t = sampler.sample(&why);
  ASSERT_TRUE(t) << why;
  EXPECT_EQ(why, "");
  EXPECT_EQ(t->sm_clock_mhz, 1980);
  EXPECT_EQ(t->mem_clock_mhz, 2619);
  EXPECT_EQ(t->power_w, 351.25);  // milliwatts to watts
  EXPECT_EQ(t->power_limit_w, std::nullopt) << "not supported must read as unknown, not 0";
  // Only the versioned query exists in the fake, and it checks the struct version word.
  EXPECT_EQ(t->temperature_c, 47);
  // Only the pre-12.2 name exists in the fake: the sampler must fall back to it.
  EXPECT_EQ(t->clock_event_reasons, cuda::clock_event::sw_power_cap | cuda::clock_event::hw_thermal_slowdown);
}

TEST_F(FakeNvml, EveryInitIsMatchedByOneShutdownThroughMoves) {
  ASSERT_EQ(refcount(), 0);
  {
    auto a = cuda::NvmlSampler::for_index(0);
    EXPECT_EQ(refcount(), 1);
    cuda::NvmlSampler b = std::move(a);
    EXPECT_EQ(refcount(), 1);
    auto c = cuda::NvmlSampler::for_pci_bus_id("00000000:19:00.0");
    EXPECT_EQ(refcount(), 2);
    c = std::move(b);  // c's old session goes to b, which ends it with the scope
    EXPECT_EQ(refcount(), 2);
    EXPECT_TRUE(c.sample());
    std::string why;
    EXPECT_FALSE(a.sample(&why));
    EXPECT_CONTAINS(why, "moved-from");
  }
  EXPECT_EQ(refcount(), 0);
  EXPECT_TRUE(cuda::nvml_available());
  EXPECT_EQ(refcount(), 0) << "nvml_available must shut down what it initialized";
}

TEST_F(FakeNvml, AnUnknownGpuIsAMessageAndLeavesNvmlShutDown) {
  std::string msg = error_of([] { cuda::NvmlSampler::for_pci_bus_id("00000000:AA:00.0"); });
  EXPECT_CONTAINS(msg, "NVML has no GPU with PCI bus id \"00000000:AA:00.0\"");
  EXPECT_CONTAINS(msg, "Not Found");
  EXPECT_CONTAINS(error_of([] { cuda::NvmlSampler::for_index(3); }), "no GPU with index 3");
  EXPECT_EQ(refcount(), 0);
}

TEST_F(FakeNvml, ADriverThatDoesNotAnswerIsAMessage) {
  ScopedEnv fail("FAKE_NVML_INIT_FAILS", "1");
  std::string why;
  EXPECT_FALSE(cuda::nvml_available(&why));
  EXPECT_CONTAINS(why, "NVML is not available: nvmlInit_v2 failed: Driver Not Loaded");
  EXPECT_EQ(error_of([] { cuda::NvmlSampler::for_index(0); }), why);
}

TEST_F(FakeNvml, ALostGpuGivesNoSampleAndSaysWhy) {
  auto sampler = cuda::NvmlSampler::for_index(0);
  ScopedEnv lost("FAKE_NVML_GPU_LOST", "1");
  std::string why;
  EXPECT_EQ(sampler.sample(&why), std::nullopt);
  EXPECT_CONTAINS(why, "nvmlDeviceGetClockInfo(SM): GPU is lost");
  EXPECT_CONTAINS(why, "nvmlDeviceGetCurrentClocksEventReasons: GPU is lost");
}
#else
TEST(FakeNvml, NotBuilt) { GTEST_FAIL() << "build with -DKTUNE_FAKE_NVML=<path of the fake library>"; }
#endif

// ---- clocks-event reasons ----

TEST(ClockEventReasons, BitsAreNvmlsDocumentedValues) {
  namespace ce = cuda::clock_event;
  // nvmlClocksEventReason* in the NVML API reference; a wrong bit would misname every reading.
  EXPECT_EQ(ce::gpu_idle, 0x1u);
  EXPECT_EQ(ce::applications_clocks_setting, 0x2u);
  EXPECT_EQ(ce::sw_power_cap, 0x4u);
  EXPECT_EQ(ce::hw_slowdown, 0x8u);
  EXPECT_EQ(ce::sync_boost, 0x10u);
  EXPECT_EQ(ce::sw_thermal_slowdown, 0x20u);
  EXPECT_EQ(ce::hw_thermal_slowdown, 0x40u);
  EXPECT_EQ(ce::hw_power_brake_slowdown, 0x80u);
  EXPECT_EQ(ce::display_clock_setting, 0x100u);
  EXPECT_EQ(ce::board_limit, 0x200u);
  EXPECT_EQ(ce::reliability, 0x400u);
}

TEST(ClockEventReasons, NamesEachSetBitLowestFirst) {
  EXPECT_TRUE(cuda::reason_names(0).empty());
  EXPECT_EQ(cuda::reason_names(0x44), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(cuda::reason_names(0x1 | 0x800), (std::vector<std::string>{"gpu_idle", "unknown_0x800"}));
  std::vector<std::string> all = cuda::reason_names(0x7ff);
  ASSERT_EQ(all.size(), 11u);
  for (const auto& n : all) EXPECT_EQ(n.find("unknown"), std::string::npos) << n;
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << "two bits share a name";
}

TEST(ClockEventReasons, ThrottledMeansPowerHeatOrHardwareHeldTheClocksDown) {
  namespace ce = cuda::clock_event;
  for (uint64_t bit : {ce::sw_power_cap, ce::hw_slowdown, ce::sw_thermal_slowdown, ce::hw_thermal_slowdown,
                       ce::hw_power_brake_slowdown, ce::board_limit, ce::reliability})
    EXPECT_TRUE(cuda::throttled(bit)) << cuda::reason_names(bit)[0];
  for (uint64_t bit : {uint64_t{0}, ce::gpu_idle, ce::applications_clocks_setting, ce::sync_boost,
                       ce::display_clock_setting, uint64_t{0x800}})
    EXPECT_FALSE(cuda::throttled(bit)) << bit;
  EXPECT_TRUE(cuda::throttled(ce::gpu_idle | ce::hw_thermal_slowdown));
  EXPECT_FALSE(cuda::throttled(ce::gpu_idle | ce::applications_clocks_setting | ce::sync_boost));
}

// ---- GpuTelemetry JSON ----

TEST(GpuTelemetryJson, RoundTripsAndExplainsTheReasons) {
  cuda::GpuTelemetry t;
  t.sm_clock_mhz = 1755;
  t.mem_clock_mhz = 2619;
  t.power_w = 612.5;
  t.power_limit_w = 700;
  t.temperature_c = 71;
  t.clock_event_reasons = cuda::clock_event::sw_power_cap;
  nlohmann::json j = t;
  EXPECT_EQ(j["sm_clock_mhz"], 1755);
  EXPECT_EQ(j["power_w"], 612.5);
  EXPECT_EQ(j["clock_event_reasons"], 4);
  EXPECT_EQ(j["clock_event_reason_names"], nlohmann::json({"sw_power_cap"}));
  EXPECT_EQ(j["throttled"], true);
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<cuda::GpuTelemetry>(), t);
}

TEST(GpuTelemetryJson, UnknownFieldsAreLeftOutAndReadBackUnknown) {
  cuda::GpuTelemetry t;
  t.sm_clock_mhz = 1980;
  nlohmann::json j = t;
  EXPECT_EQ(j, nlohmann::json({{"sm_clock_mhz", 1980}})) << "no 0 stands in for unknown";
  EXPECT_EQ(j.get<cuda::GpuTelemetry>(), t);
  auto back = nlohmann::json::parse(R"({"power_w": null, "temperature_c": 40, "throttled": true})")
                  .get<cuda::GpuTelemetry>();
  EXPECT_EQ(back.power_w, std::nullopt);
  EXPECT_EQ(back.temperature_c, 40);
  EXPECT_EQ(back.clock_event_reasons, std::nullopt) << "derived keys are not read";
}

TEST(GpuTelemetryJson, WrongShapesThrow) {
  EXPECT_THROW(nlohmann::json::array().get<cuda::GpuTelemetry>(), Error);
  EXPECT_THROW(nlohmann::json::parse(R"({"sm_clock_mhz": "fast"})").get<cuda::GpuTelemetry>(),
               nlohmann::json::exception);
}

// ---- splitting activity records into samples ----

constexpr uint64_t kFlushBytes = 100 << 20;

ActivitySpan span(ActivitySpan::Kind kind, uint64_t start, uint64_t end, uint64_t bytes, const char* name = "") {
  ActivitySpan s;
  s.kind = kind;
  s.start_ns = start;
  s.end_ns = end;
  s.bytes = bytes;
  s.name = name;
  return s;
}
ActivitySpan kernel(uint64_t start, uint64_t end, const char* name = "gemm") {
  return span(ActivitySpan::Kind::kernel, start, end, 0, name);
}
ActivitySpan memset(uint64_t start, uint64_t end, uint64_t bytes = kFlushBytes) {
  return span(ActivitySpan::Kind::memset, start, end, bytes);
}
ActivitySpan copy(uint64_t start, uint64_t end, uint64_t bytes) {
  return span(ActivitySpan::Kind::memcpy, start, end, bytes);
}

TEST(KernelSamples, OneKernelPerSample) {
  auto samples = split_into_samples(
      {memset(0, 50), kernel(60, 160), memset(200, 250), kernel(260, 390)}, kFlushBytes);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].busy_ns, 100u);
  EXPECT_EQ(samples[1].busy_ns, 130u);
  EXPECT_EQ(samples[1].kernels, 1);
  EXPECT_DOUBLE_EQ(samples[1].busy_ms(), 130e-6);
}

TEST(KernelSamples, KernelsOfOneSampleAddUp) {
  // cuBLAS split-K: the GEMM and its reduction are one sample; the gap between them is not counted.
  auto samples = split_into_samples({memset(0, 50), kernel(60, 160, "gemm_splitk"),
                                     kernel(170, 190, "splitKreduce"), memset(300, 350), kernel(360, 460)},
                                    kFlushBytes);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].busy_ns, 120u);
  EXPECT_EQ(samples[0].kernels, 2);
  EXPECT_EQ(samples[1].busy_ns, 100u);
}

TEST(KernelSamples, WorkBeforeTheFirstMarkerBelongsToNoSample) {
  auto samples = split_into_samples({kernel(0, 1000, "reference"), memset(2000, 2050), kernel(2060, 2160)},
                                    kFlushBytes);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].busy_ns, 100u);
  EXPECT_EQ(samples[0].kernels, 1);
}

TEST(KernelSamples, OrderOfDeliveryDoesNotMatter) {
  std::vector<ActivitySpan> spans;
  for (uint64_t i = 0; i < 20; ++i) {
    uint64_t t0 = i * 1000;
    spans.push_back(memset(t0, t0 + 50));
    spans.push_back(kernel(t0 + 100, t0 + 200 + i));
    if (i % 3 == 0) spans.push_back(kernel(t0 + 300, t0 + 310));
  }
  auto in_order = split_into_samples(spans, kFlushBytes);
  // CUPTI hands over buffers in no promised order, and records of two kinds come in separate runs.
  std::mt19937 rng(7);
  std::shuffle(spans.begin(), spans.end(), rng);
  auto shuffled = split_into_samples(spans, kFlushBytes);
  ASSERT_EQ(shuffled.size(), 20u);
  for (size_t i = 0; i < shuffled.size(); ++i) {
    EXPECT_EQ(shuffled[i].busy_ns, in_order[i].busy_ns) << i;
    EXPECT_EQ(shuffled[i].busy_ns, 100 + i + (i % 3 == 0 ? 10 : 0)) << i;
    EXPECT_EQ(shuffled[i].kernels, i % 3 == 0 ? 2 : 1) << i;
  }
}

TEST(KernelSamples, AMemsetInsideTheWorkIsWorkNotABoundary) {
  // The work zeroes its output (2 MiB) before accumulating into it: same sample, counted as work.
  auto samples = split_into_samples(
      {memset(0, 50), memset(60, 70, 2 << 20), kernel(80, 180), memset(300, 350), kernel(360, 460)},
      kFlushBytes);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].busy_ns, 110u);
  EXPECT_EQ(samples[0].kernels, 1);
  EXPECT_EQ(samples[0].memsets, 1);
  // Without a marker size every memset is a boundary: the same records make three samples.
  EXPECT_EQ(split_into_samples({memset(0, 50), memset(60, 70, 2 << 20), kernel(80, 180)}, 0).size(), 2u);
}

TEST(KernelSamples, ACopyIsWork) {
  // The copy roof is a cudaMemcpyAsync: its sample holds a memcpy record and no kernel, and must
  // still count as timed (--timer cupti failed every family with a copy roof before).
  auto samples = split_into_samples({memset(0, 50), copy(60, 260, 1 << 20), memset(300, 350), kernel(360, 460)},
                                    kFlushBytes);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].busy_ns, 200u);
  EXPECT_EQ(samples[0].copies, 1);
  EXPECT_EQ(samples[0].kernels, 0);
  EXPECT_TRUE(samples[0].has_work());
  EXPECT_TRUE(samples[1].has_work());
  // A copy the size of the flush buffer is still a copy: only memsets mark samples.
  EXPECT_EQ(split_into_samples({memset(0, 50), copy(60, 70, kFlushBytes)}, kFlushBytes).size(), 1u);
}

TEST(KernelSamples, ASampleWithoutKernelsKeepsItsPlace) {
  auto samples = split_into_samples({memset(0, 50), memset(100, 150), kernel(160, 200)}, kFlushBytes);
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].kernels, 0);
  EXPECT_EQ(samples[0].busy_ns, 0u);
  EXPECT_FALSE(samples[0].has_work());
  EXPECT_EQ(samples[1].kernels, 1);
}

TEST(KernelSamples, AMarkerStartingWithAKernelOpensTheSample) {
  // Equal timestamps (different engines, coarse clocks): the marker still opens its sample.
  auto samples = split_into_samples({kernel(100, 140), memset(100, 120)}, kFlushBytes);
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0].kernels, 1);
}

// ---- CUPTI loading ----

TEST(CuptiLoading, OverrideToAMissingFileIsAMessageNamingIt) {
  ScopedEnv env("KTUNE_CUPTI_LIBRARY", "/nonexistent/libcupti.so.13");
  EXPECT_EQ(cuda::cupti_library_candidates(), std::vector<std::string>{"/nonexistent/libcupti.so.13"})
      << "a named library must not be silently replaced by another";
  std::string why;
  EXPECT_FALSE(cuda::cupti_available(&why));
  EXPECT_CONTAINS(why, "CUPTI is not available: /nonexistent/libcupti.so.13");
  EXPECT_CONTAINS(why, "KTUNE_CUPTI_LIBRARY");
  EXPECT_EQ(error_of([] { cuda::CuptiKernelTimer timer; }), why);
}

TEST(CuptiLoading, ALibraryWithoutCuptiIsAMessage) {
  ScopedEnv env("KTUNE_CUPTI_LIBRARY", "libm.so.6");
  std::string why;
  EXPECT_FALSE(cuda::cupti_available(&why));
  EXPECT_CONTAINS(why, "libm.so.6 has no cuptiGetVersion");
}

TEST(CuptiLoading, WithoutADriverEnablingIsAMessageNotACrash) {
  ScopedEnv env("KTUNE_CUPTI_LIBRARY", std::nullopt);
  auto candidates = cuda::cupti_library_candidates();
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates[0], "libcupti.so.13");
  if (loadable("libcuda.so.1")) GTEST_SKIP() << "a driver is installed; this pins down the no-driver case";
  std::string why;
  EXPECT_FALSE(cuda::cupti_available(&why));
  bool found = std::any_of(candidates.begin(), candidates.end(), [](const auto& c) { return loadable(c.c_str()); });
  if (!found) {
    EXPECT_CONTAINS(why, "no libcupti could be loaded");
    return;
  }
  // What CUPTI 13.0 does with no libcuda.so.1: it loads, registers the buffer callbacks, then
  // refuses to enable activity kinds with CUPTI_ERROR_UNKNOWN. ktune adds why.
  EXPECT_CONTAINS(why, "CUPTI could not enable kernel activity records: "
                             "cuptiActivityEnable(CONCURRENT_KERNEL) failed: CUPTI_ERROR_UNKNOWN");
  EXPECT_CONTAINS(why, "no NVIDIA driver: libcuda.so.1");
  // A failed construction leaves nothing behind: a second attempt fails the same way, not "in use".
  EXPECT_EQ(error_of([] { cuda::CuptiKernelTimer timer; }), why);
  EXPECT_EQ(error_of([] { cuda::CuptiKernelTimer timer; }), why);
}

}  // namespace
}  // namespace ktune
