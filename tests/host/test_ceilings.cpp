// Device ceilings: the per-device file (round trip, keying, replacing, refusing to overwrite a
// corrupt file), the datasheet fallback by device name, and which ceilings a report chooses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "report/ceilings_choice.hpp"
#include "report/datasheet.hpp"
#include "store/ceilings.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

DeviceInfo h100() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  return d;
}

DeviceInfo named(const std::string& name) {
  DeviceInfo d = h100();
  d.name = name;
  return d;
}

Ceilings measured(double copy_gbps) {
  Ceilings c;
  c.source = "measured";
  c.label = "NVIDIA H100 80GB HBM3";
  c.measured_at = "2026-11-21T20:00:00Z";
  c.copy_gbps = copy_gbps;
  c.tflops = {{"fp16", 666.5}, {"bf16", 716}, {"fp32", 372}};
  c.probes["copy"] = CeilingProbe{"cudaMemcpyAsync device-to-device, 1024 MiB", 2147483648.0,
                                  TimeStats{40, 0.711, 0.712, 0.70, 0.73, 0.004, 0.709, 0.714}};
  return c;
}

class CeilingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune_test_ceilings_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    file_ = dir_ / "ceilings.json";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_, file_;
};

TEST(CeilingsKey, NamesDeviceCcSmsAndDriver) {
  EXPECT_EQ(ceilings_key(h100()), "NVIDIA H100 80GB HBM3;cc=9.0;sms=132;driver=13000");
}

TEST_F(CeilingsTest, MissingFileHasNothing) { EXPECT_FALSE(CeilingsStore(file_).find(h100())); }

TEST_F(CeilingsTest, RoundTripsEveryField) {
  CeilingsStore(file_).put(h100(), measured(3019.5));
  auto got = CeilingsStore(file_).find(h100());
  ASSERT_TRUE(got);
  EXPECT_EQ(got->source, "measured");
  EXPECT_EQ(got->label, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(got->measured_at, "2026-11-21T20:00:00Z");
  EXPECT_EQ(got->copy_gbps, 3019.5);
  EXPECT_EQ(got->tflops, measured(0).tflops);
  ASSERT_EQ(got->probes.count("copy"), 1u);
  EXPECT_EQ(got->probes.at("copy").what, "cudaMemcpyAsync device-to-device, 1024 MiB");
  EXPECT_EQ(got->probes.at("copy").work, 2147483648.0);
  EXPECT_EQ(got->probes.at("copy").time.n, 40u);
  EXPECT_EQ(got->probes.at("copy").time.median, 0.711);
}

TEST_F(CeilingsTest, KeyedPerDeviceAndDriver) {
  CeilingsStore store(file_);
  store.put(h100(), measured(3000));
  DeviceInfo other = named("NVIDIA H200");
  store.put(other, measured(4500));
  store.put(h100(), measured(3100));  // replaces, does not add
  EXPECT_EQ(store.find(h100())->copy_gbps, 3100);
  EXPECT_EQ(store.find(other)->copy_gbps, 4500);
  DeviceInfo new_driver = h100();
  new_driver.driver_version = 13010;
  EXPECT_FALSE(store.find(new_driver));
  DeviceInfo fewer_sms = h100();
  fewer_sms.sm_count = 114;
  EXPECT_FALSE(store.find(fewer_sms));
  EXPECT_EQ(nlohmann::json::parse(read_file(file_)).at("devices").size(), 2u);
}

TEST_F(CeilingsTest, CorruptFileIsAnErrorAndIsNotOverwritten) {
  write_file_atomic(file_, "{\"devices\": [");
  EXPECT_THROW(CeilingsStore(file_).find(h100()), ConfigError);
  EXPECT_THROW(CeilingsStore(file_).put(h100(), measured(3000)), Error);
  EXPECT_EQ(read_file(file_), "{\"devices\": [");
  write_file_atomic(file_, "{\"schema\": 99, \"devices\": []}");
  EXPECT_THROW(CeilingsStore(file_).find(h100()), ConfigError);
}

TEST(Datasheet, KnownPartsByName) {
  auto h = datasheet_ceilings(h100());
  ASSERT_TRUE(h);
  EXPECT_EQ(h->source, "datasheet");
  EXPECT_EQ(h->copy_gbps, 3350);
  EXPECT_EQ(h->tflops.at("fp16"), 989);
  EXPECT_EQ(h->tflops.at("bf16"), 989);
  EXPECT_EQ(h->tflops.at("fp32"), 494);
  EXPECT_EQ(h->tflops.at("fp8"), 1979);
  auto h200 = datasheet_ceilings(named("NVIDIA H200"));
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->copy_gbps, 4800);
  EXPECT_EQ(h200->tflops.at("fp16"), 989);
  auto a100 = datasheet_ceilings(named("NVIDIA A100-SXM4-80GB"));
  ASSERT_TRUE(a100);
  EXPECT_EQ(a100->copy_gbps, 2000);
  EXPECT_EQ(a100->tflops.at("fp16"), 312);
  EXPECT_EQ(a100->tflops.at("fp32"), 156);
  EXPECT_EQ(a100->tflops.count("fp8"), 0u);  // no fp8 tensor cores: no roof rather than a zero one
}

TEST(Datasheet, VariantsWithOtherNumbersAreNotGuessed) {
  EXPECT_FALSE(datasheet_ceilings(named("NVIDIA H100 PCIe")));
  EXPECT_FALSE(datasheet_ceilings(named("NVIDIA H100 NVL")));
  EXPECT_FALSE(datasheet_ceilings(named("NVIDIA A100-SXM4-40GB")));
  EXPECT_FALSE(datasheet_ceilings(named("NVIDIA GeForce RTX 4090")));
}

TEST_F(CeilingsTest, ChoosesMeasuredThenDatasheet) {
  const fs::path cache_file = dir_ / "cache" / "ceilings.json";
  EXPECT_EQ(choose_ceilings(h100(), std::nullopt, cache_file).source, "datasheet");
  CeilingsStore(cache_file).put(h100(), measured(3019));
  Ceilings c = choose_ceilings(h100(), std::nullopt, cache_file);
  EXPECT_EQ(c.source, "measured");
  EXPECT_EQ(c.copy_gbps, 3019);
  EXPECT_THROW(choose_ceilings(named("NVIDIA GeForce RTX 4090"), std::nullopt, cache_file), ConfigError);
}

TEST_F(CeilingsTest, ANamedFileMustHaveTheDevice) {
  const fs::path cache_file = dir_ / "cache" / "ceilings.json";
  CeilingsStore(cache_file).put(h100(), measured(3019));
  CeilingsStore(file_).put(named("NVIDIA H200"), measured(4500));
  EXPECT_THROW(choose_ceilings(h100(), file_, cache_file), ConfigError);  // no fallback when named
  EXPECT_EQ(choose_ceilings(named("NVIDIA H200"), file_, cache_file).copy_gbps, 4500);
  EXPECT_THROW(choose_ceilings(h100(), dir_ / "missing.json", cache_file), ConfigError);
}

}  // namespace
}  // namespace ktune
