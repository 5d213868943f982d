// The runtime library's launcher on the GPU (runtime/launcher.hpp): a bundle exported from a
// tuned add answers a shape it was not tuned for from the nearest row, correctly, and starts
// tuning that shape in the background; once the tuning lands in the bundle's cache, a bundle
// opened again answers the shape exactly (its kernel compiled by NVRTC), correctly again.
#include <cuda_runtime.h>

#include <chrono>
#include <thread>
#include <vector>

#include "gpu_test_support.hpp"
#include "runtime/launcher.hpp"
#include "store/cache.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

// C = A + B through `launcher` over n fp32 elements: the number of elements that differ from the
// host's sum (exact: the kernels add in fp32 and store fp32).
int64_t wrong_sums(Launcher& launcher, const Problem& p, int64_t n, RuntimeChoice* choice) {
  std::vector<float> a(n), b(n), c(n);
  for (int64_t i = 0; i < n; ++i) a[i] = 0.25f * static_cast<float>(i % 1000) - 17.0f, b[i] = 1.0f / static_cast<float>(1 + i % 77);
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  EXPECT_EQ(cudaMalloc(&da, n * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&db, n * 4), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&dc, n * 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dc, 0xff, n * 4), cudaSuccess);  // NaNs where nothing is written
  *choice = launcher.launch(p, {{"A", da}, {"B", db}, {"C", dc}}, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(c.data(), dc, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  for (float* d : {da, db, dc}) cudaFree(d);
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += !(c[i] == a[i] + b[i]);
  return wrong;
}

TEST(RuntimeGpu, AMissIsAnsweredByTheNearestAndTunedForTheNextOpen) {
  KTUNE_REQUIRE_GPU();
  const fs::path dir = test::scratch_dir("runtime");
  const std::string cache = " --cache-dir " + (dir / "cache").string();
  ASSERT_EQ(test::run_ktune("add --n 1048576 --dtype fp32 --max-candidates 6 --no-progress --out " + (dir / "out").string() +
                                cache, dir / "tune.txt"), 0) << read_file(dir / "tune.txt");
  const fs::path bundle = dir / "bundle";
  ASSERT_EQ(test::run_ktune("export --bundle " + bundle.string() + cache, dir / "export.txt"), 0)
      << read_file(dir / "export.txt");

  const int64_t n = 3 * 1048576 + 5;  // ragged, and a factor of 3 from the tuned shape
  const Problem p{"add", {{"N", n}}, "fp32", {}};
  RuntimeChoice miss;
  {
    Launcher launcher(bundle, dir / "runtime-cache", KTUNE_BINARY);
    EXPECT_EQ(wrong_sums(launcher, p, n, &miss), 0);
  }
  EXPECT_GT(miss.distance, 1.5);
  EXPECT_EQ(miss.kernel_from, "bundle cubin");
  ASSERT_TRUE(miss.tuning_started);

  // The background tuning writes the bundle's cache; wait for the shape (a few seconds of tuning).
  const fs::path tuned = bundle / "cache" / "best_configs.json";
  bool landed = false;
  for (int i = 0; i < 240 && !landed; ++i) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (!fs::exists(tuned)) continue;
    for (const CacheEntry& e : BestConfigCache(tuned).list()) landed |= e.key.dims == p.dims && e.key.dtype == "fp32";
  }
  ASSERT_TRUE(landed) << (fs::exists(bundle / "cache" / "tune-on-miss.log") ? read_file(bundle / "cache" / "tune-on-miss.log")
                                                                             : "no tune-on-miss.log");

  Launcher again(bundle, dir / "runtime-cache");
  RuntimeChoice exact;
  EXPECT_EQ(wrong_sums(again, p, n, &exact), 0);
  EXPECT_EQ(exact.distance, 0);
  EXPECT_EQ(exact.kernel_from, "nvrtc");
  EXPECT_FALSE(exact.tuning_started);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ktune
