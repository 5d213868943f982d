// --gpus: the list's syntax, "all" against the GPUs a worker sees, and which CUDA_VISIBLE_DEVICES
// value shows a worker its one GPU under the parent's own setting.
#include <gtest/gtest.h>

#include "scale/gpu_list.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

TEST(GpuList, ParsesAllOrIndices) {
  EXPECT_TRUE(parse_gpu_list("all").all);
  EXPECT_EQ(parse_gpu_list("0,1,3").indices, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(parse_gpu_list("2").indices, (std::vector<int>{2}));
  EXPECT_EQ(parse_gpu_list("0,0").indices, (std::vector<int>{0, 0}));  // two workers on one GPU
  for (const char* bad : {"", "x", "0,", ",1", "-1", "1.5", "0;1", "all,0", " 1"})
    EXPECT_THROW(parse_gpu_list(bad), ConfigError) << bad;
}

TEST(GpuList, ResolvesAgainstTheVisibleCount) {
  EXPECT_EQ(resolve_gpus(parse_gpu_list("all"), 4), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(resolve_gpus(parse_gpu_list("all"), 1), (std::vector<int>{0}));
  EXPECT_EQ(resolve_gpus(parse_gpu_list("1,0"), 2), (std::vector<int>{1, 0}));
  try {
    resolve_gpus(parse_gpu_list("0,2"), 2);
    FAIL() << "GPU 2 of 2 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 2 does not exist; this host shows 2 GPUs"), std::string::npos) << e.what();
  }
}

TEST(GpuList, WorkerSeesItsGpuThroughTheParentsNumbering) {
  EXPECT_EQ(visible_devices_for(0, std::nullopt), "0");
  EXPECT_EQ(visible_devices_for(3, std::nullopt), "3");
  EXPECT_EQ(visible_devices_for(0, std::string("2,3")), "2");
  EXPECT_EQ(visible_devices_for(1, std::string("2,3")), "3");
  EXPECT_EQ(visible_devices_for(1, std::string("GPU-aaaa,GPU-bbbb")), "GPU-bbbb");  // UUIDs pass through
  EXPECT_THROW(visible_devices_for(2, std::string("2,3")), ConfigError);
}

}  // namespace
}  // namespace ktune
