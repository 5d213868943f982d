// `ktune report` on the committed H100 results file and on a synthetic multi-problem file: the
// model (winner, reference, counts, figures that agree with the results file), each format's
// content, the HTML's self-containment and chart elements, datasheet labelling, and the command's
// exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "families/family.hpp"
#include "report/charts.hpp"
#include "report/svg.hpp"
#include "report/datasheet.hpp"
#include "report/report.hpp"
#include "report/writers.hpp"
#include "store/results.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

const fs::path kH100File = KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json.gz";

Ceilings measured() {
  Ceilings c;
  c.source = "measured";
  c.label = "NVIDIA H100 80GB HBM3";
  c.measured_at = "2026-11-21T20:00:00Z";
  c.copy_gbps = 3019;
  c.tflops = {{"fp16", 666}, {"bf16", 716}, {"fp32", 372}};
  return c;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

struct Loaded {
  RunInfo run;
  std::vector<ProblemResult> results;
};

Loaded load_h100() {
  Loaded l;
  l.results = read_results(kH100File, &l.run);
  return l;
}

CandidateRecord timed(const std::string& source, double median_ms, Bindings params = {}) {
  CandidateRecord r;
  r.source = source;
  r.role = source == "cublas" ? Role::baseline : Role::candidate;
  r.kernel_name = source == "cublas" ? "cublasGemmEx" : "ktune_gemm_mma<...>";
  r.params = std::move(params);
  r.disposition = Disposition::passed;
  r.time = TimeStats{10, median_ms, median_ms, median_ms, median_ms, 0, median_ms, median_ms};
  return r;
}

ProblemResult synthetic(int64_t m, int64_t n, int64_t k, const std::string& dtype, std::vector<CandidateRecord> recs) {
  ProblemResult r;
  r.problem = Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, dtype, {{"layout", "rr"}}};
  r.cost = find_family("gemm").cost(r.problem);
  r.records = std::move(recs);
  return r;
}

// A baseline other than cuBLAS: cuDNN, or the copy roof timed beside a memory-bound family.
CandidateRecord baseline(const std::string& source, const std::string& kernel, double median_ms) {
  CandidateRecord r = timed(source, median_ms);
  r.role = Role::baseline;
  r.kernel_name = kernel;
  return r;
}

ProblemResult of_family(Problem problem, std::vector<CandidateRecord> recs) {
  ProblemResult r;
  r.problem = std::move(problem);
  r.cost = find_family(r.problem.family).cost(r.problem);
  r.records = std::move(recs);
  return r;
}

const Problem kSoftmax{"softmax", {{"rows", 8192}, {"cols", 8192}}, "fp16", {}};  // 268435456 bytes moved
const Problem kAdd{"add", {{"N", int64_t{1} << 26}}, "fp32", {}};                 // 805306368 bytes moved

// `ktune bench suites/memory-bound.json` in small: softmax timed against cuDNN with the copy roof
// beside it, add against the copy roof alone. Rates: softmax ktune 2684 GB/s (88.9% of the 3019
// GB/s roof), cuDNN 1678 (55.6%), copy 2826; add ktune 2684, copy 2876 (95.3%).
Loaded memory_bound() {
  Loaded l;
  l.run.device.name = "NVIDIA H100 80GB HBM3";
  l.results.push_back(of_family(kSoftmax, {baseline("cudnn", "cudnnSoftmaxForward (accurate, instance, fp16)", 0.16),
                                           baseline("copy", "cudaMemcpyAsync device-to-device (copy roof)", 0.095),
                                           timed("ktune", 0.1, {{"BLOCK", 256}}),
                                           timed("ktune", 0.12, {{"BLOCK", 128}})}));
  l.results.push_back(of_family(kAdd, {baseline("copy", "cudaMemcpyAsync device-to-device (copy roof)", 0.28),
                                       timed("ktune", 0.3, {{"VEC", 4}})}));
  return l;
}

// The committed 4096^3 file plus a memory-bound fp16 GEMM and a bf16 one: three problems, two
// dtypes, the shape a `ktune sweep` file has.
Loaded multi_problem() {
  Loaded l = load_h100();
  l.results.push_back(synthetic(8192, 8192, 16, "fp16",
                                {timed("cublas", 0.06), timed("ktune", 0.05, {{"BLOCK_M", 64}}),
                                 timed("ktune", 0.07, {{"BLOCK_M", 128}})}));
  l.results.push_back(
      synthetic(4096, 4096, 4096, "bf16", {timed("cublas", 0.2), timed("ktune", 0.3, {{"BLOCK_M", 128}})}));
  return l;
}

TEST(Report, AgreesWithTheResultsFile) {
  Loaded l = load_h100();
  ASSERT_EQ(l.results.size(), 1u);
  const ProblemResult& raw = l.results[0];
  double best = 0;
  int passed = 0;
  for (const CandidateRecord& r : raw.records)
    if (r.source != "cublas" && r.disposition == Disposition::passed && r.time) {
      ++passed;
      if (best == 0 || r.time->median < best) best = r.time->median;
    }
  ASSERT_GT(passed, 0);

  const Report report = build_report(l.run, l.results, measured(), kH100File.string());
  ASSERT_EQ(report.problems.size(), 1u);
  const ReportProblem& p = report.problems[0];
  EXPECT_EQ(p.passed_candidates, passed);
  size_t untimed = 0;
  for (const auto& [d, n] : p.untimed) untimed += n;
  EXPECT_EQ(p.records.size() + untimed, raw.records.size());
  EXPECT_TRUE(std::is_sorted(p.records.begin(), p.records.end(),
                             [](const ReportRecord& a, const ReportRecord& b) { return a.median_ms < b.median_ms; }));

  ASSERT_TRUE(p.winner);
  ASSERT_TRUE(p.baseline);
  const ReportRecord& win = p.records[*p.winner];
  EXPECT_EQ(win.source, "ktune");
  EXPECT_EQ(win.median_ms, best);
  EXPECT_EQ(p.records[*p.baseline].source, "cublas");
  EXPECT_EQ(p.bound, "compute");
  EXPECT_NEAR(p.intensity, 4096.0 / 3, 1e-9);
  EXPECT_NEAR(p.ridge, 666e12 / 3019e9, 1e-9);
  // The tuner derived TFLOPS the same way; the report must agree with the file.
  for (const CandidateRecord& r : raw.records)
    if (r.source == "cublas") EXPECT_NEAR(p.records[*p.baseline].roof.achieved_tflops, r.tflops, 1e-6 * r.tflops);
  EXPECT_NEAR(win.roof.pct_compute_roof, 100 * win.roof.achieved_tflops / 666, 1e-9);
}

TEST(Report, CsvHasOneRowPerTimedRecord) {
  Loaded l = load_h100();
  const Report report = build_report(l.run, l.results, measured(), kH100File.string());
  const std::string csv = report_to_csv(report);
  EXPECT_EQ(count(csv, "\n"), report.problems[0].records.size() + 1);
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* col : {"intensity", "ridge", "bound", "achieved_tflops", "achieved_gbps", "pct_compute_roof",
                          "pct_memory_roof", "compute_roof_tflops", "memory_roof_gbps", "ceilings"})
    EXPECT_NE(header.find(col), std::string::npos) << col;
  EXPECT_EQ(count(csv, ",winner,"), 1u);
  EXPECT_EQ(count(csv, ",baseline,"), 1u);
}

TEST(Report, JsonCarriesRoofsAndEveryTimedRecord) {
  Loaded l = load_h100();
  const Report report = build_report(l.run, l.results, measured(), kH100File.string());
  const nlohmann::json j = nlohmann::json::parse(report_to_json(report).dump());
  EXPECT_EQ(j.at("schema_version"), kReportSchemaVersion);
  EXPECT_EQ(j.at("ceilings").at("source"), "measured");
  EXPECT_EQ(j.at("device").at("name"), l.run.device.name);
  const auto& p = j.at("problems").at(0);
  EXPECT_EQ(p.at("records").size(), report.problems[0].records.size());
  EXPECT_EQ(p.at("roofs").at("compute_tflops"), 666);
  const auto& win = p.at("records").at(p.at("winner").get<size_t>());
  EXPECT_EQ(win.at("source"), "ktune");
  EXPECT_EQ(win.at("roofline").at("bound"), "compute");
  EXPECT_GT(win.at("roofline").at("achieved_tflops").get<double>(), 0);
}

TEST(Report, MarkdownSummarisesCeilingsAndProblems) {
  Loaded l = load_h100();
  const Report report = build_report(l.run, l.results, measured(), kH100File.string());
  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("## Ceilings (measured)"), std::string::npos);
  EXPECT_NE(md.find("| memory (copy, bytes read + written) | 3019 GB/s |"), std::string::npos);
  EXPECT_NE(md.find("| 4096x4096x4096 fp16 rr |"), std::string::npos);
  EXPECT_NE(md.find("| winner |"), std::string::npos);
  EXPECT_NE(md.find("| ref | cuBLAS |"), std::string::npos);
  EXPECT_EQ(md.find("atasheet"), std::string::npos);
}

TEST(Report, HtmlIsSelfContained) {
  Loaded l = multi_problem();
  const std::string html = report_to_html(build_report(l.run, l.results, measured(), kH100File.string()));
  for (const char* banned : {"<script", "<link", "src=", "href=", "url(", "@import", "@font-face"})
    EXPECT_EQ(html.find(banned), std::string::npos) << banned;
  // The only address is the SVG namespace name, which nothing fetches.
  EXPECT_EQ(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  EXPECT_EQ(count(html, "<svg "), 3u);  // the ratio chart, the roofline, one perf chart
}

TEST(Report, RooflineChartMarksEveryPassedCandidate) {
  Loaded l = load_h100();
  const Report report = build_report(l.run, l.results, measured(), kH100File.string());
  const std::string svg = roofline_svg(report);
  const ReportProblem& p = report.problems[0];
  EXPECT_EQ(count(svg, "class=\"point candidate"), static_cast<size_t>(p.passed_candidates - 1));  // all but the winner
  EXPECT_EQ(count(svg, "class=\"point winner\""), 1u);
  EXPECT_EQ(count(svg, "class=\"point baseline\""), 1u);
  EXPECT_EQ(count(svg, "class=\"roof roof-memory\""), 1u);
  EXPECT_EQ(count(svg, "class=\"roof roof-compute\""), 1u);
  EXPECT_EQ(count(svg, "class=\"ridge\""), 1u);
  EXPECT_NE(svg.find("class=\"axis x-axis\""), std::string::npos);
  EXPECT_NE(svg.find("class=\"axis y-axis\""), std::string::npos);
  EXPECT_NE(svg.find("Roofline (measured roofs)"), std::string::npos);
}

TEST(Report, SeveralProblemsAndDtypes) {
  Loaded l = multi_problem();
  const Report report = build_report(l.run, l.results, measured(), "sweep.json");
  ASSERT_EQ(report.problems.size(), 3u);
  EXPECT_EQ(report.problems[1].bound, "memory");
  EXPECT_EQ(report.problems[1].records[*report.problems[1].winner].median_ms, 0.05);
  EXPECT_EQ(report.problems[2].roofs.compute_tflops, 716);

  const std::string roof = roofline_svg(report);
  EXPECT_EQ(count(roof, "class=\"roof roof-compute\""), 2u);  // fp16 and bf16
  EXPECT_EQ(count(roof, "class=\"point winner\""), 3u);
  EXPECT_EQ(count(roof, "class=\"point baseline\""), 3u);

  const std::string perf = perf_svg(report, "TFLOPS");
  for (const char* series : {"ktune (best) fp16", "cuBLAS fp16", "ktune (best) bf16", "cuBLAS bf16"})
    EXPECT_NE(perf.find(std::string("data-label=\"") + series + "\""), std::string::npos) << series;
  EXPECT_EQ(count(perf, "class=\"series\""), 4u);
  // The fp16 series hold 4096^3 and 8192x8192x16: not one shape at two sizes, so points, no line.
  EXPECT_EQ(count(perf, "class=\"series-line\""), 0u);
  EXPECT_EQ(count(perf, "class=\"point provider\""), 6u);
}

TEST(Report, TheRatioChartHasABarAProblemSortedAndNamed) {
  // The committed fp16 anchors: 22 problems, each a winner against cuBLAS.
  RunInfo run;
  const std::vector<ProblemResult> results =
      read_results(KTUNE_SOURCE_DIR "/results/h100/bench-anchors-fp16.json", &run);
  const Report report = build_report(run, results, measured(), "bench-anchors-fp16.json");
  const std::string svg = ratio_svg(report);
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find("id=\"ratio\""), std::string::npos);
  EXPECT_NE(svg.find("against cuBLAS"), std::string::npos);
  size_t bars = 0;
  double previous = 0;
  const std::regex bar(R"re(class="bar (faster|slower)"[^>]* data-ratio="([0-9.]+)")re");
  for (std::sregex_iterator m(svg.begin(), svg.end(), bar), end; m != end; ++m, ++bars) {
    const double ratio = std::stod((*m)[2]);
    EXPECT_GE(ratio, previous);  // sorted, slowest first
    EXPECT_EQ((*m)[1] == "faster", ratio >= 1) << ratio;
    previous = ratio;
  }
  EXPECT_EQ(bars, results.size());
  EXPECT_EQ(count(svg, "class=\"bar-label\""), results.size());
  EXPECT_NE(svg.find(">4096x4096x4096 fp16 rr<"), std::string::npos);  // problems are named
  EXPECT_NE(report_to_html(report).find("id=\"ratio\""), std::string::npos);
}

TEST(Report, RoofAndRidgeLabelsNeverOverlapEvenForEqualRoofs) {
  // Three dtypes whose compute roofs (and so ridges) coincide: the worst case for labels.
  Loaded l = multi_problem();
  l.results.push_back(synthetic(2048, 2048, 2048, "fp32", {timed("cublas", 0.1), timed("ktune", 0.1, {{"BLOCK_M", 64}})}));
  Ceilings c = measured();
  c.tflops = {{"fp16", 700}, {"bf16", 700}, {"fp32", 700}};
  const std::string svg = roofline_svg(build_report(l.run, l.results, c, "sweep.json"));
  for (const char* cls : {"roof-label", "ridge-label"}) {
    std::vector<double> ys;
    const std::regex label(std::string(R"re(<text class=")re") + cls + R"re(" x="[0-9.]+" y="([0-9.]+)")re");
    for (std::sregex_iterator m(svg.begin(), svg.end(), label), end; m != end; ++m) ys.push_back(std::stod((*m)[1]));
    ASSERT_EQ(ys.size(), 3u) << cls;
    std::sort(ys.begin(), ys.end());
    for (size_t i = 1; i < ys.size(); ++i) EXPECT_GE(ys[i] - ys[i - 1], 11.0) << cls;  // a line's height apart
  }
}

TEST(Report, ARateAboveItsRoofIsExplained) {
  // The committed examples' bench: rope and vector_add ran at 101-102% of the copy roof.
  for (const char* example : {"rope", "residual_rmsnorm", "histogram", "vector_add"})
    declare_families_in(fs::path(KTUNE_SOURCE_DIR) / "examples" / example);
  RunInfo run;
  const std::vector<ProblemResult> results =
      read_results(KTUNE_SOURCE_DIR "/results/h100/examples-1b360f0/bench-examples.json.gz", &run);
  Ceilings c = measured();
  c.copy_gbps = 2900;  // below what the winners reached (the histogram's i32 is drawn under fp32's roof)
  const Report report = build_report(run, results, c, "bench-examples.json");
  const std::string note = above_roof_note(report);
  EXPECT_NE(note.find("Rates above 100% of their roof"), std::string::npos) << note;
  EXPECT_NE(report_to_html(report).find("class=\"note above-roof\""), std::string::npos);
  EXPECT_NE(report_to_markdown(report).find("a roof here is a measurement, not a bound"), std::string::npos);
  // Under roofs nobody reaches, nothing to explain (with the test's usual ceilings cuBLAS's 676
  // TFLOPS at 4096^3 passes the 666 TFLOPS fp16 roof, and the note says so).
  Loaded l = load_h100();
  EXPECT_FALSE(above_roof_note(build_report(l.run, l.results, measured(), kH100File.string())).empty());
  Ceilings high = measured();
  high.tflops["fp16"] = 989;  // the datasheet's dense fp16
  EXPECT_TRUE(above_roof_note(build_report(l.run, l.results, high, kH100File.string())).empty());
}

// gemm_nvfp4's prefill rows (the committed H200 bench) are compute-bound and read in TFLOPS; the
// copy roof timed beside them does none of their arithmetic, so its "TFLOPS" (FLOPs over a copy's
// time, 9.5 times the roof at 4096 x 4096 x 14336) are no rate above a roof to explain.
TEST(Report, ACopyRoofBesideAComputeBoundProblemIsNoRateAboveItsRoof) {
  RunInfo run;
  const std::vector<ProblemResult> results =
      read_results(KTUNE_SOURCE_DIR "/results/h200/nvfp4-prefill-838c260/bench-nvfp4-prefill.json.gz", &run);
  Ceilings c = measured();
  c.tflops = {{"fp16", 989}, {"bf16", 989}};  // the datasheet's dense 16-bit rate
  c.copy_gbps = 4800;
  const Report report = build_report(run, results, c, "bench-nvfp4-prefill.json");
  EXPECT_EQ(common_rate_unit(report), "TFLOPS");
  EXPECT_TRUE(above_roof_note(report).empty()) << above_roof_note(report);
}

TEST(Report, ColoursNeverRepeat) {
  std::set<std::string> seen;
  for (size_t i = 0; i < 200; ++i) EXPECT_TRUE(seen.insert(svg::color(i)).second) << i << " " << svg::color(i);
}

TEST(Report, OneProblemIsOnePointPerProvider) {
  Loaded l = load_h100();
  const std::string perf = perf_svg(build_report(l.run, l.results, measured(), kH100File.string()), "TFLOPS");
  EXPECT_EQ(count(perf, "class=\"series\""), 2u);
  EXPECT_EQ(count(perf, "class=\"point provider\""), 2u);
  EXPECT_EQ(count(perf, "class=\"series-line\""), 0u);
}

TEST(Report, ShowsClocksAndFlagsThrottledRecords) {
  Loaded l;
  l.run.device.name = "NVIDIA H100 80GB HBM3";
  CandidateRecord capped = timed("ktune", 0.2, {{"BLOCK_M", 128}});
  capped.telemetry_after = cuda::GpuTelemetry{1515, 2619, 689.5, 700.0, 61, cuda::clock_event::sw_power_cap};
  CandidateRecord calm = timed("cublas", 0.21);
  calm.telemetry_after = cuda::GpuTelemetry{1980, 2619, 301.0, 700.0, 45, 0};
  CandidateRecord unknown = timed("ktune", 0.3, {{"BLOCK_M", 64}});  // measured without NVML
  l.results.push_back(synthetic(4096, 4096, 4096, "fp16", {capped, calm, unknown}));
  const Report report = build_report(l.run, l.results, measured(), "x.json");
  const ReportProblem& p = report.problems[0];
  ASSERT_EQ(p.records.size(), 3u);
  EXPECT_TRUE(p.records[0].throttled);
  EXPECT_FALSE(p.records[1].throttled);
  EXPECT_FALSE(p.records[2].telemetry);

  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("1515 MHz 690 W THROTTLED (sw_power_cap)"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1980 MHz 301 W |"), std::string::npos) << md;
  EXPECT_NE(report_to_html(report).find("1515 MHz 690 W THROTTLED (sw_power_cap)"), std::string::npos);

  const std::string csv = report_to_csv(report);
  EXPECT_NE(csv.find(",sm_clock_mhz,power_w,throttled,"), std::string::npos);
  EXPECT_NE(csv.find(",1515,689.5,true,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",1980,301,false,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",,,false,"), std::string::npos) << csv;  // no NVML: empty, not 0

  const nlohmann::json j = report_to_json(report);
  const nlohmann::json& first = j["problems"][0]["records"][0];
  EXPECT_EQ(first["throttled"], true);
  EXPECT_EQ(first["telemetry"]["sm_clock_mhz"], 1515);
  EXPECT_TRUE(j["problems"][0]["records"][2]["telemetry"].is_null());
}

TEST(Report, AProblemWithoutWinnerStillReports) {
  Loaded l;
  l.run.device.name = "NVIDIA H100 80GB HBM3";
  CandidateRecord bad = timed("ktune", 0.1);
  bad.disposition = Disposition::incorrect;
  CandidateRecord never;
  never.source = "ktune";
  never.disposition = Disposition::compile_failed;
  l.results.push_back(synthetic(1000, 1000, 1000, "fp16", {timed("cublas", 0.02), bad, never}));
  const Report report = build_report(l.run, l.results, measured(), "x.json");
  const ReportProblem& p = report.problems[0];
  EXPECT_FALSE(p.winner);
  EXPECT_EQ(p.untimed.at("compile_failed"), 1);
  EXPECT_EQ(p.passed_candidates, 0);
  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("incorrect"), std::string::npos);
  EXPECT_NE(report_to_html(report).find("id=\"roofline\""), std::string::npos);
}

TEST(Report, DatasheetCeilingsAreLabelled) {
  Loaded l = load_h100();
  auto sheet = datasheet_ceilings(l.run.device);
  ASSERT_TRUE(sheet);
  const Report report = build_report(l.run, l.results, *sheet, kH100File.string());
  const std::string md = report_to_markdown(report), html = report_to_html(report);
  EXPECT_NE(md.find("## Ceilings (datasheet)"), std::string::npos);
  EXPECT_NE(md.find("Datasheet values (NVIDIA H100 SXM datasheet)"), std::string::npos);
  EXPECT_NE(html.find("class=\"note datasheet\""), std::string::npos);
  EXPECT_NE(html.find("Roofline (datasheet roofs)"), std::string::npos);
  EXPECT_NE(html.find("fp16 989 TFLOPS (datasheet)"), std::string::npos);
}

// fp8 results (the committed H100 fp8/TF32 bench) report against the fp8 roof, not a throw.
TEST(Report, Fp8ResultsUseTheFp8Roof) {
  RunInfo run;
  const std::vector<ProblemResult> results =
      read_results(KTUNE_SOURCE_DIR "/results/h100/bench-hopper-dtypes.json", &run);
  auto sheet = datasheet_ceilings(run.device);
  ASSERT_TRUE(sheet);
  const Report report = build_report(run, results, *sheet, "bench-hopper-dtypes.json");
  const std::string html = report_to_html(report);
  EXPECT_NE(html.find("fp8 compute roof 1979 TFLOPS"), std::string::npos);
  EXPECT_NE(html.find("fp32 compute roof 494 TFLOPS"), std::string::npos);
}

TEST(Report, NoProblemsIsBadInput) {
  EXPECT_THROW(build_report(RunInfo{}, {}, measured(), "empty.json"), ConfigError);
}

TEST(Report, CeilingsTableSaysHowEachRoofWasMeasured) {
  Ceilings c = measured();
  c.probes["copy"] = CeilingProbe{"cudaMemcpyAsync device-to-device, 1024 MiB", 2147483648.0,
                                  TimeStats{70, 0.715, 0.715, 0.71, 0.72, 0.001, 0.714, 0.716}};
  std::vector<CeilingRow> rows = ceiling_rows(c);
  ASSERT_EQ(rows.size(), 4u);  // memory, then bf16, fp16, fp32
  EXPECT_EQ(rows[0].value, "3019 GB/s");
  EXPECT_EQ(rows[0].how, "cudaMemcpyAsync device-to-device, 1024 MiB, median 0.7150 ms of 70");
  EXPECT_EQ(rows[2].roof, "fp16 compute");
  EXPECT_EQ(rows[2].value, "666 TFLOPS");
  EXPECT_EQ(rows[2].how, "measured");  // no probe recorded for it
  EXPECT_EQ(rows[3].roof, "fp32 compute (TF32 tensor cores)");
  DeviceInfo h200;
  h200.name = "NVIDIA H200";
  auto sheet = datasheet_ceilings(h200);
  ASSERT_TRUE(sheet);
  for (const CeilingRow& row : ceiling_rows(*sheet)) EXPECT_EQ(row.how, "datasheet");
}

// ---- rates and baselines by family ----

// A GEMM report reads as it always has: TFLOPS, and cuBLAS because cuBLAS is its reference.
TEST(Report, GemmReportSaysTflopsAndCublas) {
  Loaded l = multi_problem();
  const Report report = build_report(l.run, l.results, measured(), "sweep.json");
  for (const ReportProblem& p : report.problems) EXPECT_EQ(p.baseline_source, "cublas");
  EXPECT_EQ(common_rate_unit(report), "TFLOPS");
  EXPECT_EQ(common_baseline_name(report), "cuBLAS");

  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("| problem | intensity (FLOP/B) | ridge | bound | ktune best TFLOPS | % of roof | cuBLAS TFLOPS | "
                    "% of roof | ktune / cuBLAS |\n|---|---|---|---|---|---|---|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| 4096x4096x4096 fp16 rr |"), std::string::npos);  // one family: no family name
  EXPECT_EQ(count(md, "| vs cuBLAS |"), 3u);
  // Headers name the provider, never the generic word (cuBLAS's own row is noted "baseline").
  EXPECT_EQ(md.find("vs baseline"), std::string::npos);
  EXPECT_EQ(md.find("baseline TFLOPS"), std::string::npos);

  const std::string html = report_to_html(report);
  EXPECT_NE(html.find("<th>ktune best TFLOPS</th><th>% of roof</th><th>cuBLAS TFLOPS</th><th>% of roof</th>"
                      "<th>ktune / cuBLAS</th>"),
            std::string::npos);
  EXPECT_EQ(count(html, "<th>vs cuBLAS</th>"), 3u);
  EXPECT_EQ(count(html, "<svg "), 3u);  // the ratio chart, the roofline and one perf chart
  EXPECT_NE(html.find("id=\"perf-tflops\""), std::string::npos);
  EXPECT_NE(html.find("TFLOPS by problem size"), std::string::npos);
  EXPECT_EQ(html.find("perf-gbps"), std::string::npos);

  // Tooltips give TFLOPS.
  const ReportProblem& p = report.problems[0];
  const std::string tip = fmt::format("{:.1f} TFLOPS · {:.1f}% of roof", p.records[*p.winner].roof.achieved_tflops,
                                      p.records[*p.winner].roof.pct_attainable);
  EXPECT_NE(roofline_svg(report).find(tip), std::string::npos) << tip;
  EXPECT_NE(perf_svg(report, "TFLOPS").find(tip), std::string::npos) << tip;

  const std::string csv = report_to_csv(report);
  EXPECT_NE(csv.find(",achieved_tflops,achieved_gbps,rate,rate_unit,"), std::string::npos);
  EXPECT_NE(csv.find(",ratio_vs_baseline,baseline_source,"), std::string::npos);
  // Every row says its unit, and that its ratio is against cuBLAS.
  for (size_t at = csv.find('\n') + 1; at < csv.size(); at = csv.find('\n', at) + 1) {
    const std::string row = csv.substr(at, csv.find('\n', at) - at);
    EXPECT_NE(row.find(",TFLOPS,"), std::string::npos) << row;
    EXPECT_NE(row.find(",cublas,"), std::string::npos) << row;
  }
}

TEST(Report, MemoryBoundModelNamesItsReference) {
  Loaded l = memory_bound();
  const Report report = build_report(l.run, l.results, measured(), "bench-memory-bound.json");
  ASSERT_EQ(report.problems.size(), 2u);
  const ReportProblem& softmax = report.problems[0];
  const ReportProblem& add = report.problems[1];
  EXPECT_EQ(softmax.baseline_source, "cudnn");
  ASSERT_TRUE(softmax.baseline);
  EXPECT_EQ(softmax.records[*softmax.baseline].source, "cudnn");  // not the faster copy roof
  EXPECT_EQ(softmax.passed_candidates, 2);
  EXPECT_EQ(add.baseline_source, "copy");
  EXPECT_EQ(baseline_name(softmax), "cuDNN");
  EXPECT_EQ(baseline_name(add), "copy roof");
  EXPECT_EQ(common_rate_unit(report), "GB/s");
  EXPECT_EQ(common_baseline_name(report), "");  // cuDNN and the copy roof
  EXPECT_EQ(rate_units(report), std::vector<std::string>{"GB/s"});
  EXPECT_EQ(record_rate(softmax, softmax.records[*softmax.winner]), "2684 GB/s");
  EXPECT_NEAR(pct_of_roof(softmax, softmax.records[*softmax.winner].roof), 100 * 2684.35456 / 3019, 1e-6);
  EXPECT_EQ(problem_label(report, softmax), "softmax 8192x8192 fp16");
}

TEST(Report, MemoryBoundTablesShowGbpsAndTheirBaseline) {
  Loaded l = memory_bound();
  const Report report = build_report(l.run, l.results, measured(), "bench-memory-bound.json");

  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("| ktune best GB/s | % of roof | baseline | baseline GB/s | % of roof | ktune / baseline |\n"
                    "|---|---|---|---|---|---|---|---|---|---|\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| softmax 8192x8192 fp16 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| memory | 2684 | 88.9% | cuDNN | 1678 | 55.6% | 1.600x |"), std::string::npos) << md;
  EXPECT_NE(md.find("| add 67108864 fp32 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| memory | 2684 | 88.9% | copy roof | 2876 | 95.3% | 0.933x |"), std::string::npos) << md;
  EXPECT_EQ(md.find("cuBLAS"), std::string::npos);
  EXPECT_EQ(count(md, "| vs cuDNN |"), 1u);
  EXPECT_EQ(count(md, "| vs copy roof |"), 1u);
  EXPECT_NE(md.find("| ref | cuDNN |"), std::string::npos);
  EXPECT_NE(md.find("| ref | copy roof |"), std::string::npos);

  const std::string html = report_to_html(report);
  EXPECT_NE(html.find("<th>ktune best GB/s</th><th>% of roof</th><th class=\"text\">baseline</th>"
                      "<th>baseline GB/s</th><th>% of roof</th><th>ktune / baseline</th>"),
            std::string::npos);
  EXPECT_NE(html.find("<td>2684</td><td>88.9%</td><td class=\"text\">cuDNN</td><td>1678</td><td>55.6%</td>"
                      "<td>1.600x</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<td class=\"text\">copy roof</td><td>2876</td><td>95.3%</td><td>0.933x</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<th>vs cuDNN</th>"), std::string::npos);
  EXPECT_NE(html.find("<th>vs copy roof</th>"), std::string::npos);
  EXPECT_EQ(html.find("cuBLAS"), std::string::npos);
}

TEST(Report, MemoryBoundPerfChartIsGbpsAgainstTheMemoryRoof) {
  Loaded l = memory_bound();
  const Report report = build_report(l.run, l.results, measured(), "bench-memory-bound.json");
  const std::string html = report_to_html(report);
  EXPECT_EQ(count(html, "<svg "), 2u);  // the roofline and the GB/s chart
  EXPECT_NE(html.find("id=\"perf-gbps\""), std::string::npos);
  EXPECT_EQ(html.find("perf-tflops"), std::string::npos);
  EXPECT_EQ(html.find("TFLOPS by problem size"), std::string::npos);

  const std::string perf = perf_svg(report, "GB/s");
  EXPECT_NE(perf.find("GB/s by problem size"), std::string::npos);
  EXPECT_NE(perf.find("problem size (MB moved per run, minimum)"), std::string::npos);
  EXPECT_EQ(perf.find("TFLOPS"), std::string::npos) << perf;
  EXPECT_EQ(count(perf, "class=\"roof roof-memory\""), 1u);
  EXPECT_EQ(count(perf, "class=\"roof roof-compute\""), 0u);
  EXPECT_NE(perf.find("memory roof 3019 GB/s (measured)"), std::string::npos);
  // The families are told apart; each provider's fastest record is a point.
  for (const char* series : {"ktune (best) softmax", "cuDNN softmax", "copy roof softmax", "ktune (best) add",
                             "copy roof add"})
    EXPECT_NE(perf.find(std::string("data-label=\"") + series + "\""), std::string::npos) << series;
  EXPECT_EQ(count(perf, "class=\"series\""), 5u);
  EXPECT_EQ(count(perf, "class=\"point provider\""), 5u);
  EXPECT_NE(perf.find("softmax 8192x8192 fp16 · ktune · BLOCK=256 · 0.1000 ms · 2684 GB/s · 88.9% of roof"),
            std::string::npos)
      << perf;

  // The roofline keeps its axes (FLOP/byte, TFLOPS) but its tooltips give GB/s.
  const std::string roof = roofline_svg(report);
  EXPECT_NE(roof.find(">TFLOPS<"), std::string::npos);
  EXPECT_NE(roof.find("winner · softmax 8192x8192 fp16 · ktune · BLOCK=256 · 0.1000 ms · 2684 GB/s"),
            std::string::npos);
  EXPECT_NE(roof.find("add 67108864 fp32 · copy roof · cudaMemcpyAsync device-to-device (copy roof) · 0.2800 ms · "
                      "2876 GB/s · 95.3% of roof"),
            std::string::npos);
  EXPECT_EQ(count(roof, "class=\"point baseline\""), 3u);
}

TEST(Report, MemoryBoundCsvAndJsonSayUnitAndBaseline) {
  Loaded l = memory_bound();
  const Report report = build_report(l.run, l.results, measured(), "bench-memory-bound.json");
  const std::string csv = report_to_csv(report);
  EXPECT_EQ(count(csv, ",GB/s,"), 6u);  // every record: 4 softmax, 2 add
  // baseline_source on every row, and source on the baselines' own rows: softmax's 4 rows are
  // against cuDNN, add's 2 against the copy roof.
  EXPECT_EQ(count(csv, ",cudnn,"), 4u + 1);
  EXPECT_EQ(count(csv, ",copy,"), 2u + 2);
  const ReportProblem& p = report.problems[0];
  const double gbps = p.records[*p.winner].roof.achieved_gbps;
  EXPECT_NE(csv.find(fmt::format(",{},{},GB/s,", gbps, gbps)), std::string::npos) << csv;  // rate = achieved_gbps

  const nlohmann::json j = report_to_json(report);
  const nlohmann::json& softmax = j["problems"][0];
  EXPECT_EQ(softmax["rate_unit"], "GB/s");
  EXPECT_EQ(softmax["baseline_source"], "cudnn");
  EXPECT_EQ(j["problems"][1]["baseline_source"], "copy");
  const nlohmann::json& win = softmax["records"][softmax["winner"].get<size_t>()];
  EXPECT_DOUBLE_EQ(win["rate"].get<double>(), win["roofline"]["achieved_gbps"].get<double>());

  const nlohmann::json gemm = report_to_json(build_report(load_h100().run, load_h100().results, measured(), "x"));
  EXPECT_EQ(gemm["problems"][0]["rate_unit"], "TFLOPS");
  EXPECT_EQ(gemm["problems"][0]["baseline_source"], "cublas");
}

// GEMM and memory-bound problems in one report: cells carry their units, a baseline column its
// provider, problems are named with their family, and there is a perf chart for each unit.
TEST(Report, MixedFamiliesCarryUnitsInCells) {
  Loaded l = load_h100();
  Loaded mem = memory_bound();
  l.results.insert(l.results.end(), mem.results.begin(), mem.results.end());
  const Report report = build_report(l.run, l.results, measured(), "mixed.json");
  EXPECT_EQ(common_rate_unit(report), "");
  EXPECT_EQ(rate_units(report), (std::vector<std::string>{"TFLOPS", "GB/s"}));

  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("| ktune best rate | % of roof | baseline | baseline rate | % of roof | ktune / baseline |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| gemm 4096x4096x4096 fp16 rr |"), std::string::npos);
  EXPECT_NE(md.find("TFLOPS | "), std::string::npos);
  EXPECT_NE(md.find("| cuBLAS | "), std::string::npos);
  EXPECT_NE(md.find("| 2684 GB/s | 88.9% | cuDNN | 1678 GB/s | 55.6% | 1.600x |"), std::string::npos) << md;

  const std::string html = report_to_html(report);
  EXPECT_NE(html.find("<td class=\"text\">gemm 4096x4096x4096 fp16 rr</td>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"text\">cuBLAS</td>"), std::string::npos);
  EXPECT_EQ(count(html, "<svg "), 4u);  // the ratio chart, the roofline, a TFLOPS and a GB/s chart
  const size_t tflops = html.find("id=\"perf-tflops\""), gbps = html.find("id=\"perf-gbps\"");
  ASSERT_NE(tflops, std::string::npos);
  ASSERT_NE(gbps, std::string::npos);
  EXPECT_LT(tflops, gbps);  // in the order the units first appear
  // Each chart holds only its own problems.
  EXPECT_EQ(perf_svg(report, "TFLOPS").find("softmax"), std::string::npos);
  EXPECT_EQ(perf_svg(report, "GB/s").find("gemm"), std::string::npos);
}

// The reference is the first baseline even when it has no time: the copy roof timed beside it
// does not stand in for it, since the ratios were never against the copy roof.
TEST(Report, AFailedReferenceIsNotReplaced) {
  Loaded l;
  l.run.device.name = "NVIDIA H100 80GB HBM3";
  CandidateRecord cudnn = baseline("cudnn", "cudnnSoftmaxForward", 0.16);
  cudnn.time.reset();
  cudnn.disposition = Disposition::crashed;
  l.results.push_back(of_family(kSoftmax, {cudnn, baseline("copy", "cudaMemcpyAsync (copy roof)", 0.095),
                                           timed("ktune", 0.1, {{"BLOCK", 256}})}));
  const Report report = build_report(l.run, l.results, measured(), "x.json");
  const ReportProblem& p = report.problems[0];
  EXPECT_FALSE(p.baseline);
  EXPECT_EQ(p.baseline_source, "cudnn");
  EXPECT_EQ(p.untimed.at("crashed"), 1);
  const std::string md = report_to_markdown(report);
  EXPECT_NE(md.find("| cuDNN GB/s | % of roof | ktune / cuDNN |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 2684 | 88.9% | — | — | — |"), std::string::npos) << md;
  EXPECT_NE(md.find("| vs cuDNN |"), std::string::npos);
}

// ---- the command ----

class ReportCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune_test_report_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs ktune with `args`; returns the exit code, stdout+stderr in *output.
  int ktune(const std::string& args, std::string* output) {
    const std::string cmd = std::string(KTUNE_BINARY) + " " + args + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) output->append(buf, n);
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path dir_;
};

TEST_F(ReportCommand, WritesFourFilesWithDatasheetFallback) {
  std::string out;
  const int rc = ktune("report " + kH100File.string() + " --out " + (dir_ / "out").string() + " --cache-dir " +
                           (dir_ / "cache").string(),
                       &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("NVIDIA H100 SXM datasheet"), std::string::npos) << out;
  for (const char* ext : {".json", ".csv", ".md", ".html"})
    EXPECT_TRUE(fs::exists(dir_ / "out" / (std::string("gemm-4096-fp16-rr-report") + ext))) << ext;
  EXPECT_NE(read_file(dir_ / "out" / "gemm-4096-fp16-rr-report.md").find("Ceilings (datasheet)"), std::string::npos);
}

TEST_F(ReportCommand, UsesMeasuredCeilingsFromTheCache) {
  RunInfo run;
  read_results(kH100File, &run);
  CeilingsStore(dir_ / "cache" / "ceilings.json").put(run.device, measured());
  std::string out;
  ASSERT_EQ(ktune("report " + kH100File.string() + " --out " + dir_.string() + " --cache-dir " +
                      (dir_ / "cache").string(),
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("ceilings: measured"), std::string::npos) << out;
  EXPECT_NE(read_file(dir_ / "gemm-4096-fp16-rr-report.md").find("Ceilings (measured)"), std::string::npos);
}

TEST_F(ReportCommand, MemoryBoundFileReportsGbpsAgainstItsBaselines) {
  const fs::path file = KTUNE_SOURCE_DIR "/results/h100/bench-memory-bound.json.gz";
  std::string out;
  ASSERT_EQ(ktune("report " + file.string() + " --out " + dir_.string() + " --cache-dir " + (dir_ / "cache").string(),
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("softmax 8192x8192 fp16: intensity"), std::string::npos) << out;
  EXPECT_NE(out.find(" GB/s ("), std::string::npos) << out;
  EXPECT_NE(out.find("; cuDNN "), std::string::npos) << out;
  EXPECT_NE(out.find("; copy roof "), std::string::npos) << out;  // add's only baseline
  EXPECT_EQ(out.find("TFLOPS"), std::string::npos) << out;
  const std::string md = read_file(dir_ / "bench-memory-bound-report.md");
  EXPECT_NE(md.find("| ktune best GB/s | % of roof | baseline | baseline GB/s |"), std::string::npos) << md;
  EXPECT_EQ(md.find("cuBLAS"), std::string::npos);
  EXPECT_NE(read_file(dir_ / "bench-memory-bound-report.html").find("id=\"perf-gbps\""), std::string::npos);
}

TEST_F(ReportCommand, GemmFileReportsTflopsAgainstCublas) {
  std::string out;
  ASSERT_EQ(ktune("report " + kH100File.string() + " --out " + dir_.string() + " --cache-dir " +
                      (dir_ / "cache").string(),
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("; ktune best "), std::string::npos) << out;
  EXPECT_NE(out.find(" TFLOPS ("), std::string::npos) << out;
  EXPECT_NE(out.find("; cuBLAS "), std::string::npos) << out;
  EXPECT_EQ(out.find("GB/s"), std::string::npos) << out;
}

TEST_F(ReportCommand, BadInputExitsTwo) {
  std::string out;
  EXPECT_EQ(ktune("report " + (dir_ / "missing.json").string(), &out), 2) << out;
  out.clear();
  EXPECT_EQ(ktune("report " + kH100File.string() + " --out " + dir_.string() + " --ceilings " +
                      (dir_ / "none.json").string(),
                  &out),
            2)
      << out;
  EXPECT_NE(out.find("none.json"), std::string::npos) << out;
}

}  // namespace
}  // namespace ktune
