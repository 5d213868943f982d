// A sweep whose candidates crash, hang, compute the wrong answer, fail to compile, ask for too
// much shared memory or break a constraint must classify each and still pick the correct one.
#include <fstream>
#include <map>

#include "gpu_test_support.hpp"
#include "store/results.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

TEST(PlantedFaults, EveryFaultIsClassifiedAndTheSweepGoesOn) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("faults");
  const std::string config = std::string(KTUNE_SOURCE_DIR) + "/tests/gpu/data/faulty_sweep.json";
  int rc = test::run_ktune("sweep " + config + " --timeout 5 --no-progress --max-time-ms 50 --out " +
                               (dir / "results").string() + " --cache-dir " + (dir / "cache").string(),
                           dir / "log.txt");
  std::string log = read_file(dir / "log.txt");
  ASSERT_EQ(rc, 0) << log;

  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir / "results"))
    if (e.path().extension() == ".json") files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u) << log;
  auto problems = read_results(files[0], nullptr);
  ASSERT_EQ(problems.size(), 1u);

  std::map<int64_t, Disposition> by_fault;
  for (const CandidateRecord& r : problems[0].records)
    if (r.source == "ktune") by_fault[r.params.at("FAULT")] = r.disposition;
  EXPECT_EQ(by_fault[0], Disposition::passed) << log;
  EXPECT_EQ(by_fault[1], Disposition::crashed) << log;
  EXPECT_EQ(by_fault[2], Disposition::timeout) << log;
  EXPECT_EQ(by_fault[3], Disposition::incorrect) << log;
  EXPECT_EQ(by_fault[4], Disposition::compile_failed) << log;
  EXPECT_EQ(by_fault[5], Disposition::launch_failed) << log;
  EXPECT_EQ(by_fault[6], Disposition::invalid) << log;

  // The winner in the cache is the correct kernel, never a faulty one.
  int show = test::run_ktune("cache show faulty_gemm --cache-dir " + (dir / "cache").string(), dir / "cache.txt");
  std::string cached = read_file(dir / "cache.txt");
  EXPECT_EQ(show, 0) << cached;
  EXPECT_NE(cached.find("\"FAULT\": 0"), std::string::npos) << cached;
}

}  // namespace
}  // namespace ktune
