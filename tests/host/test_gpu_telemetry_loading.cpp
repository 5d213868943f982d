// The optional GPU libraries, on a host with no driver: NVML and CUPTI are dlopen'd on first use,
// and their absence (or a wrong library) is a ktune::Error with a message naming what is missing,
// never a crash. Also the pure parts: clocks-event reasons, GpuTelemetry's JSON, and splitting
// CUPTI activity records into per-sample kernel times. NvmlSampler itself runs against
// tests/fakes/fake_nvml.cpp, a stand-in library that answers like a GPU would.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cuda/gpu_telemetry.hpp"
#include "store/telemetry_json.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

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

}  // namespace
}  // namespace ktune
