// The exported table (store/dispatch_table.hpp): the nearest-shape rule, the JSON round trip, and
// the C++ header compiled by the host compiler and asked the same questions as the library.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/dispatch_table.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

CacheEntry tuned(int64_t m, int64_t n, int64_t k, double ms, const std::string& kernel,
                 const std::string& layout = "rr", const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  CacheEntry e;
  e.key.family = "gemm";
  e.key.config_name = "gemm_wgmma";
  e.key.dtype = "fp16";
  e.key.options = {{"layout", layout}};
  e.key.dims = {{"M", m}, {"N", n}, {"K", k}};
  e.key.gpu_name = gpu;
  e.winner_config = "gemm_wgmma";
  e.kernel_name = kernel;
  e.params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}};
  e.launch.grid[0] = 132;
  e.launch.block[0] = 384;
  e.launch.shared_bytes = 229376;
  e.median_ms = ms;
  return e;
}

std::vector<DispatchRow> sample_table() {
  return dispatch_table({tuned(4096, 4096, 4096, 0.20, "big"), tuned(1024, 1024, 1024, 0.02, "small"),
                         tuned(4096, 4096, 4096, 0.25, "big_slower_driver"), tuned(4096, 4096, 4096, 0.3, "cr", "cr"),
                         tuned(8192, 8192, 8192, 1.6, "h200", "rr", "NVIDIA H200")});
}

TEST(DispatchTable, OneRowPerShapeAndGpuTheFastest) {
  const std::vector<DispatchRow> table = sample_table();
  ASSERT_EQ(table.size(), 4u);  // the two 4096^3 rr H100 winners became one
  int big = 0;
  for (const DispatchRow& r : table) big += r.kernel_name == "big";
  EXPECT_EQ(big, 1);
}

TEST(DispatchTable, NearestShapeInLogSpace) {
  const std::vector<DispatchRow> table = sample_table();
  const Options rr = {{"layout", "rr"}};
  auto near = [&](int64_t m, int64_t n, int64_t k, const std::string& gpu = "NVIDIA H100 80GB HBM3") {
    return nearest_row(table, "gemm", "fp16", rr, {{"M", m}, {"N", n}, {"K", k}}, gpu);
  };
  ASSERT_TRUE(near(4096, 4096, 4096));
  EXPECT_EQ(near(4096, 4096, 4096)->distance, 0);
  EXPECT_EQ(near(4000, 4096, 4096)->row->kernel_name, "big");
  EXPECT_NEAR(near(4000, 4096, 4096)->distance, std::log2(4096.0 / 4000.0), 1e-12);
  EXPECT_EQ(near(1500, 1500, 1500)->row->kernel_name, "small");  // 3 * log2(1.46) < 3 * log2(2.73)
  EXPECT_EQ(near(2048, 2048, 2048)->row->kernel_name, "small");  // a tie (3 either way): table order
  EXPECT_EQ(near(8192, 8192, 8192, "")->row->kernel_name, "h200");  // any GPU
  EXPECT_EQ(near(8192, 8192, 8192)->row->kernel_name, "big");       // the H100's own
  EXPECT_FALSE(nearest_row(table, "gemm", "bf16", rr, {{"M", 64}, {"N", 64}, {"K", 64}}, ""));
  EXPECT_FALSE(nearest_row(table, "gemm", "fp16", rr, {{"M", 64}, {"N", 64}}, ""));  // other dimension names
  EXPECT_TRUE(std::isinf(shape_distance({{"M", 0}}, {{"M", 4}})));
}

// The guided search's seeds: the few nearest tuned shapes of the same dtype, options and GPU,
// nearest first.
TEST(DispatchTable, NearestRowsAreSortedAndFiltered) {
  const std::vector<DispatchRow> table = sample_table();
  const Options rr = {{"layout", "rr"}};
  const auto rows =
      nearest_rows(table, "gemm", "fp16", rr, {{"M", 2000}, {"N", 2000}, {"K", 2000}}, "NVIDIA H100 80GB HBM3", 3);
  ASSERT_EQ(rows.size(), 2u);  // the cr row and the H200's are not this problem's neighbours
  EXPECT_EQ(rows[0].row->kernel_name, "small");  // 3 * log2(1.95) < 3 * log2(2.05)
  EXPECT_EQ(rows[1].row->kernel_name, "big");
  EXPECT_LT(rows[0].distance, rows[1].distance);
  EXPECT_EQ(nearest_rows(table, "gemm", "fp16", rr, {{"M", 2000}, {"N", 2000}, {"K", 2000}}, "", 3).size(), 3u);
  EXPECT_EQ(nearest_rows(table, "gemm", "fp16", rr, {{"M", 2000}, {"N", 2000}, {"K", 2000}}, "", 1).size(), 1u);
}

TEST(DispatchTable, JsonRoundTrip) {
  const std::vector<DispatchRow> table = sample_table();
  EXPECT_EQ(parse_dispatch_json(nlohmann::json::parse(dispatch_json(table).dump())), table);
  EXPECT_THROW(parse_dispatch_json(nlohmann::json{{"schema", 1}, {"rows", {{{"family", "gemm"}}}}}), ConfigError);
  EXPECT_THROW(parse_dispatch_json(nlohmann::json{{"schema", 2}, {"rows", nlohmann::json::array()}}), ConfigError);
}

// The generated header, compiled and run: its lookup() must answer as nearest_row does.
TEST(DispatchTable, TheCppHeaderCompilesAndAnswersAsTheLibrary) {
  if (std::system("c++ --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "no host C++ compiler";
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ktune_dispatch_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "tuned.hpp", dispatch_cpp(sample_table(), "test"));
  write_file_atomic(dir / "empty.hpp", dispatch_cpp({}, "test"));
  write_file_atomic(dir / "main.cpp", R"(
    #include <cstdio>
    #include "tuned.hpp"
    namespace empty_table {
    #include "empty.hpp"
    }
    int main() {
      using namespace ktune_tuned;
      const Named asked[] = {{"K", 4096}, {"M", 4000}, {"N", 4096}};
      double d = -1;
      const Row* r = lookup("gemm", "fp16", "layout=rr", asked, 3, "NVIDIA H100 80GB HBM3", &d);
      const Named small[] = {{"K", 1500}, {"M", 1500}, {"N", 1500}};
      const Row* s = lookup("gemm", "fp16", "layout=rr", small, 3);
      const Row* none = lookup("gemm", "bf16", "layout=rr", asked, 3);
      const empty_table::ktune_tuned::Named asked_empty[] = {{"K", 4096}, {"M", 4000}, {"N", 4096}};
      const auto* e = empty_table::ktune_tuned::lookup("gemm", "fp16", "layout=rr", asked_empty, 3);
      std::printf("%s %.6f %s %d %d %lld\n", r ? r->kernel_name : "-", d, s ? s->kernel_name : "-", none == nullptr,
                  e == nullptr, r ? r->shared_bytes : 0LL);
      return 0;
    }
  )");
  const std::string cmd = "cd " + dir.string() + " && c++ -std=c++17 -Wall -Werror main.cpp -o main > build.log 2>&1 && ./main > out.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_file(dir / "build.log");
  EXPECT_EQ(read_file(dir / "out.txt"), "big 0.034216 small 1 1 229376\n");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ktune
