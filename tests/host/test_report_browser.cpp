// The HTML report drawn by a real browser: headless Chromium (Debian's `chromium`, installed by
// scripts/setup.sh) loads a copy of the report with a probe script appended, and the probe reports
// what was laid out and painted: each chart's size, the roofs' rendered lengths, how many points
// landed inside the plot area, whether the winner is on top where it is drawn, and, by rasterising
// each chart's SVG onto a canvas, how many pixels are inked, how many in the roofs' red and how
// many in the points' colours. The
// report itself carries no script; only this test's copy does. Skips when no Chromium is installed
// ($KTUNE_CHROMIUM names another binary).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "families/family.hpp"
#include "report/report.hpp"
#include "report/writers.hpp"
#include "store/results.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

namespace fs = std::filesystem;

std::optional<fs::path> find_chromium() {
  if (const char* named = std::getenv("KTUNE_CHROMIUM"); named && *named) return fs::path(named);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    for (const char* name : {"chromium", "chromium-browser"}) {
      fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// What the probe collects; it writes JSON into <pre id="ktune-probe"> once the canvases are done,
// and --virtual-time-budget makes Chromium wait for that before dumping the DOM.
const char* kProbe = R"(<script>
(function () {
  const out = {charts: {}};
  const size = e => { const b = e.getBoundingClientRect(); return b.width + b.height; };
  for (const svg of document.querySelectorAll('svg.chart')) {
    const q = s => Array.from(svg.querySelectorAll(s));
    const r = svg.getBoundingClientRect();
    const x = svg.querySelector('.x-axis .axis-line').getBoundingClientRect();
    const y = svg.querySelector('.y-axis .axis-line').getBoundingClientRect();
    const inside = e => {
      const b = e.getBoundingClientRect(), cx = b.x + b.width / 2, cy = b.y + b.height / 2;
      return b.width > 0 && b.height > 0 && cx >= x.left - 1 && cx <= x.right + 1 &&
             cy >= y.top - 1 && cy <= y.bottom + 1;
    };
    const c = {
      width: r.width, height: r.height,
      memory_roofs: q('.roof-memory').filter(e => size(e) > 20).length,
      compute_roofs: q('.roof-compute').filter(e => size(e) > 20).length,
      x_ticks: q('.x-axis text').length, y_ticks: q('.y-axis text').length,
      candidates: q('.point.candidate').filter(inside).length,
      winners: q('.point.winner').filter(inside).length,
      baselines: q('.point.baseline').filter(inside).length,
      providers: q('.point.provider').filter(inside).length,
      series_lines: q('.series-line').filter(e => size(e) > 20).length,
      bars: q('.bar').filter(e => size(e) > 2).length,
      bar_labels: q('.bar-label').filter(e => size(e) > 2).length,
    };
    const w = svg.querySelector('.point.winner');
    if (w) {
      w.scrollIntoView({block: 'center'});
      const b = w.getBoundingClientRect();
      c.winner_on_top = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2) === w;
    }
    out.charts[svg.id] = c;
  }
  const painted = Array.from(document.querySelectorAll('svg.chart')).map(svg => new Promise(done => {
    const c = out.charts[svg.id], img = new Image();
    img.onload = () => {
      const canvas = document.createElement('canvas');
      canvas.width = svg.width.baseVal.value;
      canvas.height = svg.height.baseVal.value;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const d = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      c.pixels = canvas.width * canvas.height; c.ink = 0; c.red = 0; c.colour = 0;
      for (let i = 0; i < d.length; i += 4) {
        const r = d[i], g = d[i + 1], b = d[i + 2];
        if (r < 235 || g < 235 || b < 235) c.ink++;
        const reddish = r > g && Math.abs(g - b) < 25;  // the roofs' red, also blended into white
        if (r > 170 && g < 100 && b < 100) c.red++;
        else if (!reddish && Math.max(r, g, b) - Math.min(r, g, b) > 60) c.colour++;
      }
      done();
    };
    img.onerror = () => { c.image_error = true; done(); };
    img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(new XMLSerializer().serializeToString(svg));
  }));
  Promise.all(painted).then(() => {
    const pre = document.createElement('pre');
    pre.id = 'ktune-probe';
    pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  });
})();
</script>
)";

CandidateRecord timed(const std::string& source, double median_ms) {
  CandidateRecord r;
  r.source = source;
  r.role = source == "cublas" ? Role::baseline : Role::candidate;
  r.kernel_name = source == "cublas" ? "cublasGemmEx" : "ktune_gemm_mma<...>";
  if (source != "cublas") r.params = {{"BLOCK_M", static_cast<int64_t>(median_ms * 1000)}};
  r.disposition = Disposition::passed;
  r.time = TimeStats{10, median_ms, median_ms, median_ms, median_ms, 0, median_ms, median_ms};
  return r;
}

class ReportInBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    browser_ = find_chromium();
    if (!browser_) GTEST_SKIP() << "no chromium on PATH (scripts/setup.sh installs Debian's package)";
    dir_ = fs::temp_directory_path() / ("ktune_test_browser_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "profile");
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  // Loads `html` (with the probe appended) and returns the probe's findings.
  nlohmann::json probe(const std::string& html) {
    std::string page = html;
    const size_t body_end = page.rfind("</body>");
    EXPECT_NE(body_end, std::string::npos);
    page.insert(body_end, kProbe);
    const fs::path file = dir_ / "report.html";
    write_file_atomic(file, page);
    const std::string cmd =
        "timeout 120 " + quote(browser_->string()) +
        " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-quic --no-first-run"
        " --disable-background-networking --disable-component-update --disable-sync --window-size=1200,900"
        " --virtual-time-budget=10000 --user-data-dir=" +
        quote((dir_ / "profile").string()) + " --dump-dom " + quote("file://" + file.string()) + " 2>" +
        quote((dir_ / "chromium.log").string());
    std::string dom;
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return nullptr;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) dom.append(buf, n);
    pclose(pipe);
    const std::string open = "<pre id=\"ktune-probe\">";
    const size_t at = dom.find(open);
    if (at == std::string::npos) {
      ADD_FAILURE() << "the probe did not report; chromium's log:\n" << read_file(dir_ / "chromium.log");
      return nullptr;
    }
    std::string text = dom.substr(at + open.size(), dom.find("</pre>", at) - at - open.size());
    for (auto [from, to] : {std::pair{"&lt;", "<"}, std::pair{"&gt;", ">"}, std::pair{"&amp;", "&"}})
      for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + 1))
        text.replace(p, std::strlen(from), to);
    return nlohmann::json::parse(text);
  }

  std::optional<fs::path> browser_;
  fs::path dir_;
};

Ceilings measured() {
  Ceilings c;
  c.source = "measured";
  c.label = "NVIDIA H100 80GB HBM3";
  c.copy_gbps = 3019;
  c.tflops = {{"fp16", 666}, {"bf16", 716}, {"fp32", 372}};
  return c;
}

// Checks what every chart must show, whatever its kind.
void expect_drawn(const nlohmann::json& c, const std::string& id) {
  SCOPED_TRACE(id);
  EXPECT_FALSE(c.value("image_error", false));
  EXPECT_GT(c.at("width").get<double>(), 400);
  EXPECT_GT(c.at("height").get<double>(), 300);
  EXPECT_GE(c.at("x_ticks").get<int>(), 3);
  EXPECT_GE(c.at("y_ticks").get<int>(), 3);
  // More than a blank canvas; the roofs are there in red and the points in colour (axes, grid
  // and text are grey).
  EXPECT_GT(c.at("ink").get<double>(), 0.01 * c.at("pixels").get<double>());
  EXPECT_GT(c.at("red").get<int>(), 300);
  EXPECT_GT(c.at("colour").get<int>(), 100);
}

TEST_F(ReportInBrowser, DrawsTheCommittedH100Report) {
  RunInfo run;
  std::vector<ProblemResult> results = read_results(KTUNE_SOURCE_DIR "/results/h100/gemm-4096-fp16-rr.json.gz", &run);
  const Report report = build_report(run, results, measured(), "gemm-4096-fp16-rr.json");
  const ReportProblem& p = report.problems.at(0);
  const nlohmann::json found = probe(report_to_html(report));
  ASSERT_TRUE(found.is_object());

  const nlohmann::json& roof = found.at("charts").at("roofline");
  expect_drawn(roof, "roofline");
  EXPECT_EQ(roof.at("memory_roofs"), 1);
  EXPECT_EQ(roof.at("compute_roofs"), 1);
  EXPECT_EQ(roof.at("candidates"), p.passed_candidates - 1);  // every passed candidate but the winner
  EXPECT_EQ(roof.at("winners"), 1);
  EXPECT_EQ(roof.at("baselines"), 1);  // cuBLAS
  EXPECT_TRUE(roof.at("winner_on_top").get<bool>());

  EXPECT_EQ(found.at("charts").size(), 3u);  // the ratio, the roofline, TFLOPS: no GB/s chart for a GEMM
  const nlohmann::json& ratio = found.at("charts").at("ratio");
  EXPECT_FALSE(ratio.value("image_error", false));
  EXPECT_EQ(ratio.at("bars"), 1);  // one problem, one bar, its label drawn
  EXPECT_EQ(ratio.at("bar_labels"), 1);
  // 0.898x: the bar is red, drawn left of the line at 1.
  EXPECT_GT(ratio.at("red").get<int>(), 50);
  const nlohmann::json& perf = found.at("charts").at("perf-tflops");
  expect_drawn(perf, "perf-tflops");
  EXPECT_EQ(perf.at("providers"), 2);  // ktune's best and cuBLAS, one problem: one point each
  EXPECT_EQ(perf.at("compute_roofs"), 1);
  EXPECT_EQ(perf.at("memory_roofs"), 0);
}

TEST_F(ReportInBrowser, DrawsASweepOfSeveralProblems) {
  RunInfo run;
  run.device.name = "NVIDIA H100 80GB HBM3";
  std::vector<ProblemResult> results;
  const KernelFamily& gemm = find_family("gemm");
  for (auto [m, n, k, dtype] : {std::tuple{1024, 1024, 1024, "fp16"}, std::tuple{4096, 4096, 4096, "fp16"},
                                std::tuple{8192, 8192, 16, "fp16"}, std::tuple{4096, 4096, 4096, "bf16"}}) {
    ProblemResult r;
    r.problem = Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, dtype, {{"layout", "rr"}}};
    r.cost = gemm.cost(r.problem);
    const double cublas_ms = r.cost.flops / 600e12 * 1e3 + 0.01;
    r.records = {timed("cublas", cublas_ms), timed("ktune", cublas_ms * 1.2), timed("ktune", cublas_ms * 1.5)};
    results.push_back(std::move(r));
  }
  const nlohmann::json found = probe(report_to_html(build_report(run, results, measured(), "sweep.json")));
  ASSERT_TRUE(found.is_object());
  const nlohmann::json& roof = found.at("charts").at("roofline");
  expect_drawn(roof, "roofline");
  EXPECT_EQ(roof.at("compute_roofs"), 2);  // fp16 and bf16
  EXPECT_EQ(roof.at("candidates"), 4);
  EXPECT_EQ(roof.at("winners"), 4);
  EXPECT_EQ(roof.at("baselines"), 4);
  const nlohmann::json& perf = found.at("charts").at("perf-tflops");
  expect_drawn(perf, "perf-tflops");
  EXPECT_EQ(perf.at("providers"), 8);     // 2 providers x 4 problems
  // fp16's three shapes are not one shape at three sizes (8192x8192x16 is not a cube): points, no
  // line; bf16 is one point each.
  EXPECT_EQ(perf.at("series_lines"), 0);
}

// A memory-bound bench (softmax against cuDNN with the copy roof beside it, add against the copy
// roof alone) beside a GEMM: the roofline holds all of them, and each unit gets its perf chart,
// the GB/s one with the memory roof drawn across it and no compute roof.
TEST_F(ReportInBrowser, DrawsAGbpsChartForMemoryBoundFamilies) {
  RunInfo run;
  run.device.name = "NVIDIA H100 80GB HBM3";
  std::vector<ProblemResult> results;
  auto add_problem = [&](Problem problem, double ms, std::vector<std::pair<std::string, double>> baselines) {
    ProblemResult r;
    r.problem = std::move(problem);
    r.cost = find_family(r.problem.family).cost(r.problem);
    for (const auto& [source, factor] : baselines) {
      CandidateRecord b = timed(source, ms * factor);
      b.role = Role::baseline;
      b.kernel_name = source == "cudnn" ? "cudnnSoftmaxForward" : "cudaMemcpyAsync (copy roof)";
      b.params.clear();
      r.records.push_back(b);
    }
    r.records.push_back(timed("ktune", ms));
    r.records.push_back(timed("ktune", ms * 1.3));
    results.push_back(std::move(r));
  };
  // Near the 3019 GB/s roof: bytes / (2.7e12 B/s).
  for (int64_t rows : {1024, 4096, 16384}) {
    Problem softmax{"softmax", {{"rows", rows}, {"cols", 8192}}, "fp16", {}};
    add_problem(softmax, find_family("softmax").cost(softmax).min_bytes / 2.7e12 * 1e3,
                {{"cudnn", 1.5}, {"copy", 0.95}});
  }
  for (int64_t n : {int64_t{1} << 24, int64_t{1} << 27}) {
    Problem add{"add", {{"N", n}}, "fp32", {}};
    add_problem(add, find_family("add").cost(add).min_bytes / 2.7e12 * 1e3, {{"copy", 0.95}});
  }
  Problem gemm{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
  add_problem(gemm, find_family("gemm").cost(gemm).flops / 600e12 * 1e3, {{"cublas", 1.05}});

  const nlohmann::json found = probe(report_to_html(build_report(run, results, measured(), "memory-bound.json")));
  ASSERT_TRUE(found.is_object());
  ASSERT_EQ(found.at("charts").size(), 3u);
  const nlohmann::json& roof = found.at("charts").at("roofline");
  expect_drawn(roof, "roofline");
  EXPECT_EQ(roof.at("winners"), 6);
  EXPECT_EQ(roof.at("baselines"), 3 * 2 + 2 + 1);

  const nlohmann::json& gbps = found.at("charts").at("perf-gbps");
  expect_drawn(gbps, "perf-gbps");
  EXPECT_EQ(gbps.at("memory_roofs"), 1);
  EXPECT_EQ(gbps.at("compute_roofs"), 0);
  EXPECT_EQ(gbps.at("providers"), 3 * 3 + 2 * 2);  // softmax: ktune, cuDNN, copy; add: ktune, copy
  EXPECT_EQ(gbps.at("series_lines"), 5);           // each of them over several sizes

  const nlohmann::json& tflops = found.at("charts").at("perf-tflops");
  expect_drawn(tflops, "perf-tflops");
  EXPECT_EQ(tflops.at("providers"), 2);
  EXPECT_EQ(tflops.at("compute_roofs"), 1);
}

}  // namespace
}  // namespace ktune
