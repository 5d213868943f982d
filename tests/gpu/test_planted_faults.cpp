// A sweep whose candidates crash, hang, compute the wrong answer, fail to compile, ask for too
// much shared memory, break a constraint, are right only on their first launch, or write outside
// their output must classify each, say what it did, and still pick the correct one.
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
  std::map<int64_t, std::string> reason;
  for (const CandidateRecord& r : problems[0].records) {
    if (r.source != "ktune") continue;
    by_fault[r.params.at("FAULT")] = r.disposition;
    reason[r.params.at("FAULT")] = r.reason;
  }
  EXPECT_EQ(by_fault[0], Disposition::passed) << log;
  EXPECT_EQ(by_fault[1], Disposition::crashed) << log;
  EXPECT_EQ(by_fault[2], Disposition::timeout) << log;
  EXPECT_EQ(by_fault[3], Disposition::incorrect) << log;
  EXPECT_EQ(by_fault[4], Disposition::compile_failed) << log;
  EXPECT_EQ(by_fault[5], Disposition::launch_failed) << log;
  // Fault 6 is ruled out by its config's constraint: counted in the file, not listed.
  EXPECT_EQ(by_fault.count(6), 0u);
  const std::vector<RuledOut> ruled = problems[0].ruled_out_counts();
  ASSERT_EQ(ruled.size(), 1u);
  EXPECT_EQ(ruled[0].reason, "constraint failed: FAULT != 6");
  EXPECT_EQ(ruled[0].count, 1);
  // Right once, then idle or half-written: caught on the poisoned relaunch after timing.
  for (int fault : {7, 8}) {
    EXPECT_EQ(by_fault[fault], Disposition::incorrect) << fault << ": " << reason[fault];
    EXPECT_NE(reason[fault].find("relaunch 1 after timing: right on its first launch, wrong now"), std::string::npos)
        << fault << ": " << reason[fault];
  }
  EXPECT_NE(reason[8].find("non-finite outputs"), std::string::npos) << reason[8];  // the unwritten half is NaN
  // Writes outside C: the record names what was touched.
  EXPECT_EQ(by_fault[9], Disposition::incorrect) << log;
  EXPECT_NE(reason[9].find("wrote past the end of C"), std::string::npos) << reason[9];
  EXPECT_EQ(by_fault[10], Disposition::incorrect) << log;
  EXPECT_NE(reason[10].find("changed the input A"), std::string::npos) << reason[10];

  // The winner in the cache is the correct kernel, never a faulty one.
  int show = test::run_ktune("cache show faulty_gemm --cache-dir " + (dir / "cache").string(), dir / "cache.txt");
  std::string cached = read_file(dir / "cache.txt");
  EXPECT_EQ(show, 0) << cached;
  EXPECT_NE(cached.find("\"FAULT\": 0"), std::string::npos) << cached;

  // `ktune verify` of the whole cache: the entry came from a sweep file, so without it the entry
  // is skipped with a note (not an error), and with it the winner is verified.
  const std::string cache_dir = " --cache-dir " + (dir / "cache").string();
  int skip = test::run_ktune("verify" + cache_dir, dir / "verify-skip.txt");
  std::string skipped = read_file(dir / "verify-skip.txt");
  EXPECT_EQ(skip, 0) << skipped;
  EXPECT_NE(skipped.find("SKIP gemm 256x192x128"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("0 passed, 0 failed, 1 skipped"), std::string::npos) << skipped;
  int verify = test::run_ktune("verify --config " + config + cache_dir, dir / "verify.txt");
  std::string verified = read_file(dir / "verify.txt");
  EXPECT_EQ(verify, 0) << verified;
  EXPECT_NE(verified.find("1 passed, 0 failed"), std::string::npos) << verified;
}

}  // namespace
}  // namespace ktune
