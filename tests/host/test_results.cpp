// Result files: JSON round trip (with record_json underneath), CSV header, quoting and empty
// cells for what a record does not have.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "families/family.hpp"
#include "store/record_json.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

RunInfo run_info() {
  RunInfo info;
  info.argv = {"ktune", "tune", "--config", "gemm_mma", "--shape", "4096,4096,4096"};
  info.command = "ktune tune --config gemm_mma --shape 4096,4096,4096";
  info.ktune_version = "0.1.0";
  info.started_at = "2026-11-21T10:15:00Z";
  info.nvrtc_version = "13.0";
  info.device.name = "NVIDIA H100 80GB HBM3";
  info.device.cc_major = 9;
  info.device.sm_count = 132;
  info.device.l2_bytes = 52428800;
  info.device.driver_version = 13000;
  return info;
}

std::vector<ProblemResult> results() {
  ProblemResult r;
  r.problem = Problem{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
  r.cost = Cost{2.0 * 4096 * 4096 * 4096, 3.0 * 2 * 4096 * 4096};

  CandidateRecord ref;  // cuBLAS: timed, never compiled by us
  ref.source = "cublas";
  ref.role = Role::baseline;
  ref.kernel_name = "cublasGemmEx";
  ref.disposition = Disposition::passed;
  ref.time = TimeStats{3, 0.2, 0.21, 0.19, 0.24, 0.02, 0.195, 0.22};
  ref.samples_ms = {0.19, 0.2, 0.24};
  ref.tflops = 687.2;
  ref.ratio_vs_baseline = 1;

  CandidateRecord good;
  good.source = "ktune";
  good.config_name = "gemm_mma";
  good.params = {{"BLOCK_M", 128}, {"BLOCK_N", 256}, {"M", 7}};  // "M" clashes with a dim column
  good.kernel_name = "ktune_gemm_mma<__half, 1, 128, 256>";
  good.launch.grid[0] = 16;
  good.launch.grid[1] = 32;
  good.launch.block[0] = 256;
  good.launch.shared_bytes = 98304;
  good.disposition = Disposition::passed;
  good.compile.ok = true;
  good.compile.registers = 168;
  good.compile.spill_stores = 8;
  good.compile.perf_warnings = {"ptxas warning C7508"};
  good.time = TimeStats{4, 0.25, 0.26, 0.24, 0.3, 0.03, 0.245, 0.27};
  good.samples_ms = {0.24, 0.25, 0.25, 0.3};
  good.error = ErrorStats{0.0625, std::numeric_limits<double>::infinity(), 1e-4, 0, 3};
  good.tflops = 549.7;
  good.ratio_vs_baseline = 0.8;

  CandidateRecord failed;
  failed.source = "ktune";
  failed.config_name = "gemm_mma";
  failed.params = {{"BLOCK_M", 256}, {"STAGES", 6}};
  failed.kernel_name = "ktune_gemm_mma<__half, 1, 256, 256>";
  failed.disposition = Disposition::compile_failed;
  failed.reason = "error: \"too much\" shared memory\nline 2";
  failed.compile.log = "full log";

  r.records = {ref, good, failed};
  return {r};
}

// RFC 4180 reader for the test: rows of cells, quotes and embedded newlines handled.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(cell));
      cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(cell));
      cell.clear();
      rows.emplace_back();
    } else {
      cell += c;
    }
  }
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

std::map<std::string, std::string> row_map(const std::vector<std::string>& header,
                                           const std::vector<std::string>& row) {
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < header.size() && i < row.size(); ++i) out[header[i]] = row[i];
  return out;
}

class ResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("ktune_test_results_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ResultsTest, JsonRoundTrip) {
  const auto [json_path, csv_path] = write_results(dir_ / "out", "run1", run_info(), results());
  EXPECT_EQ(json_path, dir_ / "out" / "run1.json");
  EXPECT_EQ(csv_path, dir_ / "out" / "run1.csv");
  ASSERT_TRUE(fs::exists(csv_path));

  RunInfo info;
  const auto back = read_results(json_path, &info);
  EXPECT_EQ(info.argv, run_info().argv);
  EXPECT_EQ(info.command, run_info().command);
  EXPECT_EQ(info.started_at, "2026-11-21T10:15:00Z");
  EXPECT_EQ(info.nvrtc_version, "13.0");
  EXPECT_EQ(info.device.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(info.device.l2_bytes, 52428800);
  EXPECT_EQ(info.device.driver_version, 13000);

  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(describe(back[0].problem), "gemm 4096x4096x4096 fp16 rr");
  EXPECT_DOUBLE_EQ(back[0].cost.flops, 2.0 * 4096 * 4096 * 4096);
  ASSERT_EQ(back[0].records.size(), 3u);

  const CandidateRecord& good = back[0].records[1];
  EXPECT_EQ(good.params, results()[0].records[1].params);
  EXPECT_EQ(good.kernel_name, "ktune_gemm_mma<__half, 1, 128, 256>");
  EXPECT_EQ(good.launch.grid[1], 32);
  EXPECT_EQ(good.launch.shared_bytes, 98304);
  EXPECT_EQ(good.compile.registers, 168);
  EXPECT_EQ(good.compile.perf_warnings, std::vector<std::string>{"ptxas warning C7508"});
  ASSERT_TRUE(good.time.has_value());
  EXPECT_EQ(good.time->n, 4u);
  EXPECT_DOUBLE_EQ(good.time->p20, 0.245);
  EXPECT_EQ(good.samples_ms, (std::vector<double>{0.24, 0.25, 0.25, 0.3}));
  ASSERT_TRUE(good.error.has_value());
  EXPECT_TRUE(std::isinf(good.error->max_rel));  // survives JSON as "inf"
  EXPECT_EQ(good.error->mismatches, 3);
  EXPECT_DOUBLE_EQ(good.ratio_vs_baseline, 0.8);

  const CandidateRecord& failed = back[0].records[2];
  EXPECT_EQ(failed.disposition, Disposition::compile_failed);
  EXPECT_EQ(failed.reason, results()[0].records[2].reason);
  EXPECT_FALSE(failed.time.has_value());
  EXPECT_FALSE(failed.error.has_value());
  EXPECT_EQ(back[0].records[0].source, "cublas");
}

// Candidates a constraint ruled out are counted by config and reason, not listed; a spilling
// candidate (ruled out after its compile) keeps its record. The counts survive a read and a
// rewrite (ktune merge), and reports count them as invalid.
TEST_F(ResultsTest, ConstraintRuledOutCandidatesAreCountedNotListed) {
  std::vector<ProblemResult> in = results();
  auto ruled = [](const std::string& config, const std::string& why, int64_t id) {
    CandidateRecord rec;
    rec.source = "ktune";
    rec.config_name = config;
    rec.params = {{"ID", id}};
    rec.kernel_name = "k<" + std::to_string(id) + ">";
    rec.disposition = Disposition::invalid;
    rec.reason = "constraint failed: " + why;
    return rec;
  };
  for (int64_t id = 0; id < 3; ++id) in[0].records.push_back(ruled("gemm_mma", "BLOCK_M < 2 * M", id));
  in[0].records.push_back(ruled("gemm_wgmma", "arch == 90", 9));
  CandidateRecord spilled = ruled("gemm_mma", "", 10);
  spilled.reason = "ptxas spills registers (4 bytes stored, 4 loaded)";
  spilled.params = {{"BLOCK_M", 64}};
  in[0].records.push_back(spilled);

  write_results(dir_, "run", run_info(), in);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir_ / "run.json"));
  const nlohmann::json& p = j.at("problems").at(0);
  EXPECT_EQ(p.at("records").size(), 4u);  // ref, good, failed, spilled
  ASSERT_EQ(p.at("ruled_out").size(), 2u);
  EXPECT_EQ(p.at("ruled_out")[0].at("config"), "gemm_mma");
  EXPECT_EQ(p.at("ruled_out")[0].at("reason"), "constraint failed: BLOCK_M < 2 * M");
  EXPECT_EQ(p.at("ruled_out")[0].at("count"), 3);
  EXPECT_EQ(p.at("ruled_out")[1].at("count"), 1);
  const std::string csv = read_file(dir_ / "run.csv");
  EXPECT_EQ(csv.find("constraint failed"), std::string::npos) << csv;
  EXPECT_NE(csv.find("ptxas spills"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",ID,"), std::string::npos) << "a ruled-out record's parameter made a column";

  std::vector<ProblemResult> back = read_results(dir_ / "run.json", nullptr);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].records.size(), 4u);
  const std::vector<RuledOut> expected = {{"gemm_mma", "constraint failed: BLOCK_M < 2 * M", 3},
                                          {"gemm_wgmma", "constraint failed: arch == 90", 1}};
  EXPECT_EQ(back[0].ruled_out_counts(), expected);
  write_results(dir_, "again", run_info(), back);
  EXPECT_EQ(read_results(dir_ / "again.json", nullptr)[0].ruled_out_counts(), expected);
}

// The baseline the one-pass records' ratios are against (timed again after the sweep's pass) is
// in the file, so those ratios can be recomputed from it; a problem without one writes none.
TEST_F(ResultsTest, TheSweepsBaselineTimingsRoundTrip) {
  std::vector<ProblemResult> in = results();
  ASSERT_GE(in.size(), 1u);
  in.push_back(in[0]);  // a second problem, timed without a second baseline timing
  in.back().problem.dims["M"] = 2048;
  in[0].sweep_baseline = SweepBaseline{0.125, 0.1125};
  write_results(dir_, "sweep", run_info(), in);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir_ / "sweep.json"));
  EXPECT_DOUBLE_EQ(j.at("problems").at(0).at("sweep_baseline").at("after_ms").get<double>(), 0.1125);
  for (size_t i = 1; i < in.size(); ++i) EXPECT_FALSE(j.at("problems").at(i).contains("sweep_baseline"));
  const std::vector<ProblemResult> back = read_results(dir_ / "sweep.json", nullptr);
  ASSERT_TRUE(back[0].sweep_baseline.has_value());
  EXPECT_DOUBLE_EQ(back[0].sweep_baseline->before_ms, 0.125);
  EXPECT_DOUBLE_EQ(back[0].sweep_baseline->after_ms, 0.1125);
  for (size_t i = 1; i < back.size(); ++i) EXPECT_FALSE(back[i].sweep_baseline.has_value());
}

TEST_F(ResultsTest, JsonHasSchemaVersionAndMeta) {
  const auto j = results_to_json(run_info(), results());
  EXPECT_EQ(j.at("schema_version"), kResultsSchemaVersion);
  EXPECT_EQ(j.at("meta").at("command"), run_info().command);
  EXPECT_EQ(j.at("meta").at("ktune_version"), "0.1.0");
  EXPECT_EQ(j.at("device").at("arch"), "sm_90a");
  const auto& rec = j.at("problems").at(0).at("records").at(2);
  EXPECT_EQ(rec.at("disposition"), "compile_failed");
  EXPECT_FALSE(rec.contains("time"));
  EXPECT_EQ(j.at("problems").at(0).at("records").at(1).at("error").at("max_rel"), "inf");
}

TEST_F(ResultsTest, CsvHeaderAndQuoting) {
  const std::string csv = results_to_csv(results(), problem_columns(results()));
  const std::string header_line = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header_line,
            "family,M,N,K,dtype,layout,source,config_name,BLOCK_M,BLOCK_N,param_M,STAGES,"
            "kernel_name,disposition,reason,registers,spill_stores,spill_loads,median_ms,mean_ms,"
            "min_ms,max_ms,stdev_ms,p20_ms,p80_ms,n,pruned,tflops,gbps,max_abs_err,max_rel_err,"
            "norm_rel_err,ratio_vs_baseline");
  EXPECT_NE(csv.find(",\"ktune_gemm_mma<__half, 1, 128, 256>\","), std::string::npos) << csv;
  EXPECT_NE(csv.find("\"error: \"\"too much\"\" shared memory\nline 2\""), std::string::npos);
  EXPECT_EQ(csv.find("0.24,0.25"), std::string::npos) << "raw samples do not belong in the CSV";

  const auto rows = parse_csv(csv);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) EXPECT_EQ(row.size(), rows[0].size());
  const auto good = row_map(rows[0], rows[2]);
  EXPECT_EQ(good.at("M"), "4096");
  EXPECT_EQ(good.at("param_M"), "7");
  EXPECT_EQ(good.at("BLOCK_N"), "256");
  EXPECT_EQ(good.at("STAGES"), "");  // a parameter this record does not have
  EXPECT_EQ(good.at("kernel_name"), "ktune_gemm_mma<__half, 1, 128, 256>");
  EXPECT_EQ(good.at("registers"), "168");
  EXPECT_EQ(good.at("spill_stores"), "8");
  EXPECT_EQ(good.at("median_ms"), "0.25");
  EXPECT_EQ(good.at("n"), "4");
  EXPECT_EQ(good.at("max_rel_err"), "inf");
  EXPECT_EQ(good.at("tflops"), "549.7");
  EXPECT_EQ(good.at("pruned"), "false");
}

TEST_F(ResultsTest, CsvEmptyCellsForUntimedRecord) {
  const auto rows = parse_csv(results_to_csv(results(), problem_columns(results())));
  const auto failed = row_map(rows[0], rows[3]);
  EXPECT_EQ(failed.at("disposition"), "compile_failed");
  EXPECT_EQ(failed.at("reason"), "error: \"too much\" shared memory\nline 2");
  for (const char* col : {"registers", "spill_stores", "median_ms", "mean_ms", "min_ms", "max_ms",
                          "stdev_ms", "p20_ms", "p80_ms", "n", "tflops", "gbps", "max_abs_err",
                          "ratio_vs_baseline", "BLOCK_N"})
    EXPECT_EQ(failed.at(col), "") << col;
  EXPECT_EQ(failed.at("STAGES"), "6");

  const auto ref = row_map(rows[0], rows[1]);  // cuBLAS: timed, but no compile info or error check
  EXPECT_EQ(ref.at("source"), "cublas");
  EXPECT_EQ(ref.at("registers"), "");
  EXPECT_EQ(ref.at("max_abs_err"), "");
  EXPECT_EQ(ref.at("median_ms"), "0.2");
  EXPECT_EQ(ref.at("ratio_vs_baseline"), "1");
}

TEST_F(ResultsTest, ReadRejectsBadFilesNamingThem) {
  const fs::path missing = dir_ / "missing.json";
  EXPECT_THROW(read_results(missing, nullptr), ConfigError);

  const fs::path newer = dir_ / "newer.json";
  write_file_atomic(newer, R"({"schema_version": 2, "meta": {}, "device": {}, "problems": []})");
  try {
    read_results(newer, nullptr);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(newer.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find("schema_version 2"), std::string::npos) << msg;
  }

  const fs::path broken = dir_ / "broken.json";
  write_file_atomic(broken, R"({"schema_version": 1, "meta": {}, "device": {}, "problems": [)");
  EXPECT_THROW(read_results(broken, nullptr), ConfigError);

  const fs::path bad_disposition = dir_ / "bad_disposition.json";
  write_file_atomic(bad_disposition,
                    R"({"schema_version": 1, "meta": {}, "device": {}, "problems": [
                        {"problem": {}, "records": [{"disposition": "exploded"}]}]})");
  EXPECT_THROW(read_results(bad_disposition, nullptr), ConfigError);
}

TEST(RecordJson, DispositionsAndProblemNames) {
  for (auto d : {Disposition::passed, Disposition::incorrect, Disposition::compile_failed,
                 Disposition::invalid, Disposition::launch_failed, Disposition::crashed,
                 Disposition::timeout, Disposition::not_run}) {
    nlohmann::json j = d;
    ASSERT_TRUE(j.is_string());
    EXPECT_EQ(j.get<Disposition>(), d);
    EXPECT_EQ(disposition_from_string(to_string(d)), d);
  }
  EXPECT_FALSE(disposition_from_string("exploded").has_value());
  // The family's order of dimensions and options, whatever the map's; a family this ktune does not
  // know still shows everything, as NAME=VALUE.
  EXPECT_EQ(describe(Problem{"gemm", {{"K", 64}, {"M", 16}, {"N", 32}}, "bf16", {{"layout", "cr"}}}),
            "gemm 16x32x64 bf16 cr");
  EXPECT_EQ(describe(Problem{"softmax2", {{"cols", 4096}, {"rows", 8}}, "fp16", {{"online", "yes"}}}),
            "softmax2 cols=4096 rows=8 fp16 online=yes");
}

TEST(RecordJson, DeviceArch) {
  DeviceInfo d;
  d.cc_major = 9;
  EXPECT_EQ(d.arch(), "sm_90a");
  d.cc_major = 10;
  EXPECT_EQ(d.arch(), "sm_100a");
  d.cc_major = 8;
  d.cc_minor = 6;
  EXPECT_EQ(d.arch(), "sm_86");
  d.cc_major = 12;
  d.cc_minor = 0;
  EXPECT_EQ(d.arch(), "sm_120");
}

TEST(RecordJson, NonFiniteDoublesAndStrictTypes) {
  EXPECT_EQ(double_to_json(std::nan("")), "nan");
  EXPECT_EQ(double_to_json(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_TRUE(std::isnan(double_from_json(nlohmann::json())));
  EXPECT_DOUBLE_EQ(double_from_json(nlohmann::json(2.5)), 2.5);
  EXPECT_THROW(double_from_json(nlohmann::json("fast")), nlohmann::json::exception);

  EXPECT_THROW(nlohmann::json(42).get<CandidateRecord>(), Error);
  EXPECT_THROW(nlohmann::json::parse(R"({"launch": {"grid": [1, 2]}})").get<CandidateRecord>(),
               Error);
  EXPECT_THROW(nlohmann::json::parse(R"({"compile": {"registers": "many"}})").get<CandidateRecord>(),
               nlohmann::json::exception);
  // Missing keys keep their defaults.
  const auto r = nlohmann::json::parse(R"({"source": "ktune"})").get<CandidateRecord>();
  EXPECT_EQ(r.source, "ktune");
  EXPECT_EQ(r.disposition, Disposition::not_run);
  EXPECT_EQ(r.compile.registers, -1);
  EXPECT_EQ(r.launch.block[2], 1);
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// Rounds and the NVML readings of a record survive the results file, and a reading with a
// throttle reason marks the record throttled (bench prints it, the markdown shows it).
TEST(RecordJson, RoundsAndTelemetryRoundTrip) {
  CandidateRecord rec;
  rec.source = "ktune";
  rec.rounds = {20, 20, 19};
  cuda::GpuTelemetry before, after;
  before.sm_clock_mhz = 1980;
  before.power_w = 410.5;
  before.clock_event_reasons = cuda::clock_event::gpu_idle;
  after.sm_clock_mhz = 1515;
  after.power_w = 689.0;
  after.clock_event_reasons = cuda::clock_event::sw_power_cap;
  rec.telemetry_before = before;
  rec.telemetry_after = after;
  const CandidateRecord back = nlohmann::json(rec).get<CandidateRecord>();
  EXPECT_EQ(back.rounds, rec.rounds);
  ASSERT_TRUE(back.telemetry_before && back.telemetry_after);
  EXPECT_EQ(*back.telemetry_before, before);
  EXPECT_EQ(*back.telemetry_after, after);
  EXPECT_TRUE(back.throttled());
  EXPECT_EQ(back.clocks_text(), "1515 MHz 689 W THROTTLED (sw_power_cap)");

  rec.telemetry_after->clock_event_reasons = cuda::clock_event::gpu_idle;  // idle is not throttling
  EXPECT_FALSE(rec.throttled());
  EXPECT_EQ(rec.clocks_text(), "1515 MHz 689 W");
  EXPECT_EQ(CandidateRecord{}.clocks_text(), "");  // no NVML: nothing, not zeros
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// recorded_winner is what `bench --configs-from` measures: in a tuning's file (every candidate)
// the tuner's winner, the fastest finalist, even when a candidate timed in the sweep's one pass
// alone has a lower median or a failed one comes first; without finalists, the fastest passed.
TEST(Results, RecordedWinnerIsTheFastestFinalistThenTheFastestPassed) {
  ProblemResult r;
  r.problem = Problem{"gemm", {{"M", 64}, {"N", 64}, {"K", 32768}}, "fp16", {{"layout", "rr"}}};
  auto record = [](const char* config, int64_t block, Disposition d, double median, bool finalist) {
    CandidateRecord rec;
    rec.source = "ktune";
    rec.config_name = config;
    rec.params = {{"BLOCK_M", block}};
    rec.disposition = d;
    if (d == Disposition::passed) rec.time = TimeStats{10, median, median, median, median, 0, median, median};
    if (finalist) rec.rounds = {2, 2};
    return rec;
  };
  CandidateRecord baseline = record("gemm_mma", 0, Disposition::passed, 0.001, true);
  baseline.role = Role::baseline;
  baseline.source = "cublas";
  baseline.params.clear();
  r.records = {baseline,
               record("gemm_mma", 32, Disposition::passed, 0.0150, false),
               record("gemm_mma", 64, Disposition::incorrect, 0, false),
               record("gemm_mma_cluster", 32, Disposition::passed, 0.0128, true),
               record("gemm_mma_cluster", 64, Disposition::passed, 0.0127, true),
               record("gemm_mma", 128, Disposition::passed, 0.0120, false)};
  ASSERT_TRUE(recorded_winner(r).has_value());
  EXPECT_EQ(*recorded_winner(r), 4u);

  for (CandidateRecord& rec : r.records) rec.rounds.clear();  // no final: the fastest passed
  EXPECT_EQ(*recorded_winner(r), 5u);

  r.records = {baseline, record("gemm_mma", 32, Disposition::incorrect, 0, false)};
  EXPECT_FALSE(recorded_winner(r).has_value());
}

}  // namespace
}  // namespace ktune

namespace ktune {
namespace {

// Results files written before "ratio_vs_reference" became "ratio_vs_baseline" (every committed
// one before 2026-11-27) still read with their ratios.
TEST(ResultsFiles, TheOldRatioKeyStillReads) {
  const std::vector<ProblemResult> old = read_results(KTUNE_SOURCE_DIR "/results/h100/bench-anchors-fp16.json", nullptr);
  ASSERT_FALSE(old.empty());
  int with_ratio = 0;
  for (const ProblemResult& p : old)
    for (const CandidateRecord& r : p.records) with_ratio += r.ratio_vs_baseline > 0;
  EXPECT_GE(with_ratio, static_cast<int>(old.size()));  // each problem's winner and baseline at least
}

}  // namespace
}  // namespace ktune
