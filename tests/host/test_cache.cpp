// BestConfigCache: round trip, replace by key, concurrent writers (threads and processes), a
// leftover temp file, corrupt and newer-schema files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "store/cache.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

CacheKey key_for(int m, const std::string& config = "gemm_mma") {
  CacheKey k;
  k.family = "gemm";
  k.config_name = config;
  k.kernel_hash = hex64(fnv1a64("template <int BLOCK_M> __global__ void k();"));
  k.dtype = "fp16";
  k.options = {{"layout", "rr"}};
  k.dims = {{"M", m}, {"N", 4096}, {"K", 4096}};
  k.gpu_name = "NVIDIA H100 80GB HBM3";
  k.cc_major = 9;
  k.cc_minor = 0;
  k.sm_count = 132;
  k.driver_version = 13000;
  k.nvrtc_version = "13.0";
  return k;
}

CacheEntry entry_for(int m, double median_ms = 1.25) {
  CacheEntry e;
  e.key = key_for(m);
  e.params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}, {"STAGES", 4}};
  e.kernel_name = "ktune_gemm_mma<__half, 128, 256, 4>";
  e.launch.grid[0] = 32;
  e.launch.grid[1] = 16;
  e.launch.block[0] = 384;
  e.launch.shared_bytes = 229376;
  e.median_ms = median_ms;
  e.tflops = 654.5;
  e.ratio_vs_baseline = 0.97;
  e.created_at = "2026-11-21T10:15:00Z";
  e.ktune_version = "0.1.0";
  return e;
}

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ktune_test_cache_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    file_ = dir_ / "best_configs.json";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::vector<fs::path> corrupt_copies() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().starts_with("best_configs.json.corrupt-"))
        out.push_back(e.path());
    return out;
  }

  fs::path dir_, file_;
};

TEST(CacheKey, StrIsCanonical) {
  EXPECT_EQ(key_for(2048).str(),
            "family=gemm;config=gemm_mma;kernel=" + hex64(fnv1a64("template <int BLOCK_M> "
                                                                  "__global__ void k();")) +
                ";dtype=fp16;layout=rr;dims=K=4096,M=2048,N=4096;gpu=NVIDIA H100 80GB HBM3;"
                "cc=9.0;sms=132;driver=13000;nvrtc=13.0;settings=");
}

TEST(CacheKey, MadeFromProblemAndDevice) {
  Problem p{"gemm", {{"M", 1}, {"N", 2}, {"K", 3}}, "bf16", {{"layout", "rc"}}};
  DeviceInfo d;
  d.name = "GPU";
  d.cc_major = 8;
  d.cc_minor = 6;
  d.sm_count = 84;
  d.driver_version = 12040;
  const CacheKey k = make_cache_key(p, d, "gemm_simt", "source text", "12.4", "atol=0.005");
  EXPECT_EQ(k.kernel_hash, hex64(fnv1a64("source text")));
  EXPECT_EQ(k.dims, p.dims);
  EXPECT_EQ(k.dtype, "bf16");
  EXPECT_EQ(k.options, (Options{{"layout", "rc"}}));
  EXPECT_EQ(k.config_name, "gemm_simt");
  EXPECT_EQ(k.cc_minor, 6);
  EXPECT_EQ(k.sm_count, 84);
  EXPECT_EQ(k.driver_version, 12040);
  EXPECT_EQ(k.nvrtc_version, "12.4");
  EXPECT_EQ(k.settings, "atol=0.005");
  EXPECT_NE(make_cache_key(p, d, "gemm_simt", "source text!", "12.4", "atol=0.005"), k);
  EXPECT_NE(make_cache_key(p, d, "gemm_simt", "source text", "12.4", "atol=1"), k);
}

TEST_F(CacheTest, MissingFileIsEmptyWithoutWarnings) {
  BestConfigCache cache(file_);
  EXPECT_FALSE(cache.find(key_for(1)).has_value());
  EXPECT_TRUE(cache.list().empty());
  EXPECT_TRUE(cache.take_warnings().empty());
  EXPECT_FALSE(fs::exists(file_));  // reading creates nothing
}

TEST_F(CacheTest, RoundTrip) {
  BestConfigCache(file_).put(entry_for(1024));

  const BestConfigCache reader(file_);
  const auto found = reader.find(key_for(1024));
  ASSERT_TRUE(found.has_value());
  const CacheEntry want = entry_for(1024);
  EXPECT_EQ(found->key, want.key);
  EXPECT_EQ(found->params, want.params);
  EXPECT_EQ(found->kernel_name, want.kernel_name);
  EXPECT_EQ(found->launch.grid[1], 16);
  EXPECT_EQ(found->launch.block[0], 384);
  EXPECT_EQ(found->launch.shared_bytes, 229376);
  EXPECT_DOUBLE_EQ(found->median_ms, 1.25);
  EXPECT_DOUBLE_EQ(found->tflops, 654.5);
  EXPECT_DOUBLE_EQ(found->ratio_vs_baseline, 0.97);
  EXPECT_EQ(found->created_at, want.created_at);
  EXPECT_EQ(found->ktune_version, "0.1.0");

  const auto root = nlohmann::json::parse(read_file(file_));
  EXPECT_EQ(root.at("schema"), 1);
  EXPECT_EQ(root.at("entries").size(), 1u);
}

TEST_F(CacheTest, KeyFieldsAllMatter) {
  BestConfigCache cache(file_);
  cache.put(entry_for(1024));
  CacheKey other = key_for(1024);
  other.driver_version = 13010;  // a driver update invalidates the tuning
  EXPECT_FALSE(cache.find(other).has_value());
  other = key_for(1024);
  other.kernel_hash = hex64(fnv1a64("edited source"));
  EXPECT_FALSE(cache.find(other).has_value());
  EXPECT_FALSE(cache.find(key_for(1024, "gemm_wgmma")).has_value());
  EXPECT_TRUE(cache.find(key_for(1024)).has_value());
}

TEST_F(CacheTest, PutReplacesSameKey) {
  BestConfigCache cache(file_);
  cache.put(entry_for(1024, 2.0));
  cache.put(entry_for(2048, 3.0));
  cache.put(entry_for(1024, 1.5));
  const auto all = cache.list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_DOUBLE_EQ(cache.find(key_for(1024))->median_ms, 1.5);
  EXPECT_DOUBLE_EQ(cache.find(key_for(2048))->median_ms, 3.0);
}

TEST_F(CacheTest, EraseIfAndClearCount) {
  BestConfigCache cache(file_);
  for (int m : {128, 256, 512, 1024}) cache.put(entry_for(m));
  EXPECT_EQ(cache.erase_if([](const CacheEntry& e) { return e.key.dims.at("M") < 500; }), 2u);
  EXPECT_EQ(cache.list().size(), 2u);
  EXPECT_FALSE(cache.find(key_for(256)).has_value());
  EXPECT_EQ(cache.erase_if([](const CacheEntry&) { return false; }), 0u);
  EXPECT_EQ(cache.clear(), 2u);
  EXPECT_TRUE(BestConfigCache(file_).list().empty());
}

void put_range(const fs::path& file, int first, int count) {
  BestConfigCache cache(file);  // each writer its own object, as separate processes would
  for (int i = first; i < first + count; ++i) cache.put(entry_for(i));
}

TEST_F(CacheTest, ConcurrentThreadsLoseNothing) {
  std::thread a(put_range, file_, 0, 50);
  std::thread b(put_range, file_, 1000, 50);
  a.join();
  b.join();
  BestConfigCache cache(file_);
  EXPECT_EQ(cache.list().size(), 100u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(cache.find(key_for(i)).has_value()) << i;
    EXPECT_TRUE(cache.find(key_for(1000 + i)).has_value()) << 1000 + i;
  }
  EXPECT_TRUE(cache.take_warnings().empty());
}

TEST_F(CacheTest, ConcurrentProcessesLoseNothing) {
  std::vector<pid_t> children;
  for (int first : {0, 1000}) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int rc = 0;
      try {
        put_range(file_, first, 50);
      } catch (...) {
        rc = 1;
      }
      ::_exit(rc);  // no gtest teardown in the child
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  BestConfigCache cache(file_);
  EXPECT_EQ(cache.list().size(), 100u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(cache.find(key_for(i)).has_value()) << i;
    EXPECT_TRUE(cache.find(key_for(1000 + i)).has_value()) << 1000 + i;
  }
}

TEST_F(CacheTest, LeftoverTempFileIsHarmless) {
  BestConfigCache cache(file_);
  cache.put(entry_for(1024));
  // What a writer killed between write() and rename() leaves behind.
  write_file_atomic(dir_ / "best_configs.json.4242-0.tmp", "{\"schema\": 1, \"entr");

  BestConfigCache reader(file_);
  EXPECT_TRUE(reader.find(key_for(1024)).has_value());
  reader.put(entry_for(2048));
  EXPECT_EQ(reader.list().size(), 2u);
  EXPECT_TRUE(reader.take_warnings().empty());
  EXPECT_TRUE(corrupt_copies().empty());
}

TEST_F(CacheTest, CorruptFileIsSetAsideWithWarning) {
  const std::string garbage = "{\"schema\": 1, \"entries\": [ {\"key\": ";
  write_file_atomic(file_, garbage);

  BestConfigCache cache(file_);
  EXPECT_FALSE(cache.find(key_for(1024)).has_value());
  const auto warnings = cache.take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("corrupt"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(file_.string() + ".corrupt-"), std::string::npos) << warnings[0];
  EXPECT_TRUE(cache.take_warnings().empty());  // taken

  const auto copies = corrupt_copies();
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(read_file(copies[0]), garbage);  // kept byte for byte, not overwritten
  EXPECT_FALSE(fs::exists(file_));

  cache.put(entry_for(1024));
  EXPECT_TRUE(BestConfigCache(file_).find(key_for(1024)).has_value());
}

TEST_F(CacheTest, WrongShapeIsCorruptToo) {
  write_file_atomic(file_, R"({"schema": 1, "entries": {}})");
  BestConfigCache cache(file_);
  cache.put(entry_for(1024));  // a write sets it aside as well
  EXPECT_EQ(cache.take_warnings().size(), 1u);
  EXPECT_EQ(corrupt_copies().size(), 1u);
  EXPECT_EQ(cache.list().size(), 1u);

  // An entry without its key cannot be trusted either.
  write_file_atomic(file_, R"({"schema": 1, "entries": [{"params": {}}]})");
  EXPECT_TRUE(cache.list().empty());
  EXPECT_EQ(cache.take_warnings().size(), 1u);
  EXPECT_EQ(corrupt_copies().size(), 2u);  // never over the earlier copy
}

TEST_F(CacheTest, NewerSchemaIsLeftAlone) {
  const std::string newer = R"({"schema": 2, "entries": [], "shards": ["x"]})";
  write_file_atomic(file_, newer);
  BestConfigCache cache(file_);
  EXPECT_TRUE(cache.list().empty());
  const auto warnings = cache.take_warnings();
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("schema 2"), std::string::npos) << warnings[0];
  EXPECT_THROW(cache.put(entry_for(1)), Error);
  EXPECT_EQ(read_file(file_), newer);
  EXPECT_TRUE(corrupt_copies().empty());
}

}  // namespace
}  // namespace ktune
