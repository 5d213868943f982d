// Bad input that only the GPU can judge: a problem larger than device memory is a clear message
// and exit 2, not a crash or an out-of-memory abort.
#include "gpu_test_support.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

TEST(BadInputOnGpu, ProblemLargerThanDeviceMemoryIsAClearError) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("too-big");
  // C alone is 300000 x 300000 fp16 = 180 GB.
  int rc = test::run_ktune("gemm --m 300000 --k 16 --no-progress --out " + (dir / "results").string() +
                               " --cache-dir " + (dir / "cache").string(),
                           dir / "log.txt");
  std::string log = read_file(dir / "log.txt");
  EXPECT_EQ(rc, 2) << log;
  EXPECT_NE(log.find("device memory"), std::string::npos) << log;
}

// fp8 rows whose length is no multiple of 8 bytes: no kernel of any gemm config can load them (and
// cuBLASLt refuses the shape too). Exit 2 before anything compiles, naming the constraints.
TEST(BadInputOnGpu, Fp8WithKNoKernelCanLoadNamesTheConstraint) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("fp8-odd-k");
  int rc = test::run_ktune("gemm --m 333 --n 777 --k 1023 --dtype fp8 --layout rc --no-progress --out " +
                               (dir / "results").string() + " --cache-dir " + (dir / "cache").string(),
                           dir / "log.txt");
  std::string log = read_file(dir / "log.txt");
  EXPECT_EQ(rc, 2) << log;
  EXPECT_NE(log.find("no configuration of gemm_mma"), std::string::npos) << log;
  EXPECT_NE(log.find("(lda * elem_bytes) % 16 == 0"), std::string::npos) << log;
}

}  // namespace
}  // namespace ktune
