// The built-in GEMM kernels against cuBLAS on the GPU, for every dtype and layout over ragged and
// tiny shapes (and small-M, long-K ones that split-K takes): valid configurations of each default
// sweep this GPU runs (spread_picks), each compiled for this GPU and checked on fresh random
// inputs with a poisoned output. The few-row shape (M = 3) is gemm_gemv's, in every dtype; the
// few-column and few-row shapes with K-contiguous large operands (N = 3, 13; M = 5) gemm_dot's,
// and the ones with at most 8 (N = 3; M = 2) gemm_rows' too;
// gemm_mma's split-K takes the small outputs over long K (on Hopper gemm_mma_cluster's too).
// Every case must be covered by at least one family. fp8 runs on Hopper and newer (its kernel is
// gemm_wgmma's), layout rc only, on shapes whose leading dimensions are 16-byte aligned (K and N
// multiples of 16: TMA and cuBLASLt's fp8 kernels need it) but whose tiles are still ragged.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "compile/compile_all.hpp"
#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "family_test_support.hpp"
#include "gpu_test_support.hpp"
#include "space/enumerate.hpp"
#include "tune/session.hpp"
#include "tune/tuner.hpp"

namespace ktune {
namespace {

struct Case {
  int64_t m, n, k;
  std::string dtype, layout;
};

// The cases of one dtype (fp8 only on Hopper and newer, and in layout rc).
std::vector<Case> cases(const std::string& dtype, int arch) {
  std::vector<Case> out;
  if (dtype == "fp8") {
    if (arch < 90) return out;
    const std::vector<std::array<int64_t, 3>> fp8_shapes = {
        {1, 16, 16},   {17, 48, 32},      {127, 144, 80},    {64, 64, 64},
        {256, 128, 512}, {33, 144, 4096}, {1000, 3008, 704}, {4095, 4112, 4080}};
    for (const auto& s : fp8_shapes) out.push_back({s[0], s[1], s[2], "fp8", "rc"});
    return out;
  }
  const std::vector<std::array<int64_t, 3>> shapes = {
      {1, 1, 1},    {17, 33, 5},       {127, 129, 65},    {64, 64, 64},     {256, 128, 512},
      {100, 200, 1504}, {33, 144, 4096}, {1000, 3000, 700}, {4095, 4097, 4093}, {3, 264, 2001},
      {1000, 3, 1000},  {257, 13, 4104}, {5, 1000, 2008}, {2, 520, 1000}, {77, 96, 20000}};
  for (const auto& s : shapes)
    for (std::string layout : {"rr", "rc", "cr", "cc"}) out.push_back({s[0], s[1], s[2], dtype, layout});
  return out;
}

// One test a dtype: all four in one test were still running when a device call's 575 s ran out on
// an H200 (the lent machines stop a call at 600 s), and a change to one dtype's path can run that
// dtype's alone.
class GemmKernelsRagged : public ::testing::TestWithParam<std::string> {};

TEST_P(GemmKernelsRagged, MatchCublasOnRaggedShapesEveryLayout) {
  KTUNE_REQUIRE_GPU();
  const std::string dtype = GetParam();
  auto dir = test::scratch_dir("gemm-" + dtype);
  const KernelFamily& family = find_family("gemm");

  Session session(session_options(dir));
  const DeviceInfo& device = session.device();
  NvrtcCompiler compiler(dir);
  std::vector<std::pair<SweepConfig, KernelSource>> sweeps;
  for (std::string_view path : family.default_configs()) {
    SweepConfig config = parse_family_config(family, *find_embedded(path), std::string(path));
    if (config.min_arch > arch_facts(device).arch) continue;
    KernelSource source = resolve_kernel_source(config);
    sweeps.emplace_back(std::move(config), std::move(source));
  }

  // Pick the candidates of every case first, so all compiles run in one parallel batch.
  struct Pick {
    size_t case_index;
    CandidateRecord rec;
  };
  std::vector<Case> all = cases(dtype, arch_facts(device).arch);
  if (all.empty()) GTEST_SKIP() << dtype << " needs compute capability 9.0 or newer";
  std::vector<Pick> picks;
  std::vector<CompileRequest> requests;
  for (size_t c = 0; c < all.size(); ++c) {
    Problem p{"gemm", {{"M", all[c].m}, {"N", all[c].n}, {"K", all[c].k}}, all[c].dtype, {{"layout", all[c].layout}}};
    size_t covered = 0;
    for (const auto& [config, source] : sweeps) {
      const std::vector<Candidate> valid = valid_candidates(config, family, p, arch_facts(device));
      covered += valid.size();
      if (valid.empty()) continue;
      for (size_t idx : spread_picks(valid)) {
        picks.push_back({c, candidate_record(config, valid[idx])});
        requests.push_back({source.name, source.text, source.headers, valid[idx].kernel_name, device.arch(), {}});
      }
    }
    ASSERT_GT(covered, 0u) << "no valid candidate in any family for " << describe(p);
  }
  std::vector<CompileInfo> infos = compile_all(compiler, requests, 0);

  int checked = 0;
  size_t loaded_case = SIZE_MAX;
  for (size_t i = 0; i < picks.size(); ++i) {
    Pick& pick = picks[i];
    const Case& c = all[pick.case_index];
    Problem p{"gemm", {{"M", c.m}, {"N", c.n}, {"K", c.k}}, c.dtype, {{"layout", c.layout}}};
    ASSERT_TRUE(infos[i].ok) << pick.rec.kernel_name << "\n" << infos[i].log;
    pick.rec.compile = infos[i];
    if (loaded_case != pick.case_index) {
      session.set_problem(p, family.default_tolerance(c.dtype), 1000 + pick.case_index);
      loaded_case = pick.case_index;
    }
    session.run_candidate(pick.rec, StoppingRule{}, 0, 0, /*verify_only=*/true);
    EXPECT_EQ(pick.rec.disposition, Disposition::passed)
        << describe(p) << " " << pick.rec.config_name << " " << pick.rec.kernel_name << ": " << pick.rec.reason;
    ++checked;
  }
  EXPECT_GE(checked, static_cast<int>(all.size() * 3));
  // Whether a pick of `config` ran a case that `match(case, record)` accepts.
  auto ran = [&](const std::string& config, auto match) {
    return std::any_of(picks.begin(), picks.end(), [&](const Pick& pick) {
      return pick.rec.config_name == config && match(all[pick.case_index], pick.rec);
    });
  };
  // On Hopper the wgmma family covers every dtype (fp8 in layout rc), and fp32 in every layout:
  // its M/N-major operands become wgmma's A from registers (and B is transposed in shared memory
  // under a column-major A).
  if (arch_facts(device).arch == 90) {
    EXPECT_TRUE(ran("gemm_wgmma", [](const Case&, const CandidateRecord&) { return true; }))
        << "gemm_wgmma ran no " << dtype << " case";
    if (dtype == "fp32")
      for (std::string layout : {"rr", "rc", "cr", "cc"})
        EXPECT_TRUE(ran("gemm_wgmma", [&](const Case& c, const CandidateRecord&) { return c.layout == layout; }))
            << "gemm_wgmma ran no fp32 " << layout << " case";
    // Split-K over clusters in every dtype, both with one cluster per tile (the cluster writes C:
    // 100x200x1504) and with several (their sums meet in the workspace: 77x96x20000).
    EXPECT_TRUE(ran("gemm_mma_cluster", [](const Case&, const CandidateRecord&) { return true; }))
        << "gemm_mma_cluster ran no " << dtype << " case";
    if (dtype != "fp8")
      for (int64_t k : {1504, 20000})
        EXPECT_TRUE(ran("gemm_mma_cluster", [&](const Case& c, const CandidateRecord&) { return c.k == k; }))
            << "gemm_mma_cluster ran no " << dtype << " case with K = " << k;
  }
  if (dtype != "fp8") {
    // The decode family takes the few-row shapes in every dtype (B row-major).
    EXPECT_TRUE(ran("gemm_gemv", [](const Case&, const CandidateRecord&) { return true; }))
        << "gemm_gemv ran no " << dtype << " case";
    // gemm_mma's split-K ran in every dtype (tiny outputs over a long K, as 33x144x4096).
    EXPECT_TRUE(ran("gemm_mma", [](const Case&, const CandidateRecord& r) { return r.params.at("SPLIT") == 1; }))
        << "gemm_mma ran no split-K " << dtype << " case";
    // The dot family takes few columns (A row-major) and few rows (B column-major), and the row
    // family too at most 8 of them (1000x3x1000, 2x520x1000).
    for (bool small_n : {true, false}) {
      EXPECT_TRUE(ran("gemm_dot", [&](const Case& c, const CandidateRecord&) { return (c.n <= 16) == small_n; }))
          << "gemm_dot ran no " << dtype << (small_n ? " few-column" : " few-row") << " case";
      EXPECT_TRUE(ran("gemm_rows", [&](const Case& c, const CandidateRecord&) { return (c.n <= 8) == small_n; }))
          << "gemm_rows ran no " << dtype << (small_n ? " few-column" : " few-row") << " case";
    }
  }
  EXPECT_EQ(session.worker_restarts(), 0);
}

INSTANTIATE_TEST_SUITE_P(EveryDtype, GemmKernelsRagged, ::testing::Values("fp16", "bf16", "fp32", "fp8"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Compiles every valid candidate of `config` for `p` whose tunable `only` is not `plain` (all of
// them when `only` is null) and that `keep` keeps (it may edit the record first), and checks each
// on the GPU (verify only); returns the records, each with its disposition. `edit`, when given,
// rewrites the kernel source first (a planted fault).
template <typename Keep>
std::vector<CandidateRecord> check_every_candidate(Session& session, Compiler& compiler, const SweepConfig& config,
                                                   const Problem& p, uint64_t seed, const char* only, int plain,
                                                   Keep keep, std::string (*edit)(std::string) = nullptr) {
  const KernelFamily& family = find_family(p.family);
  const DeviceInfo& device = session.device();
  KernelSource source = resolve_kernel_source(config);
  if (edit) source.text = edit(source.text);
  std::vector<CandidateRecord> recs;
  std::vector<CompileRequest> requests;
  for (const Candidate& cand : valid_candidates(config, family, p, arch_facts(device))) {
    if (only && cand.params.at(only) == plain) continue;
    recs.push_back(candidate_record(config, cand));
    if (!keep(recs.back())) {
      recs.pop_back();
      continue;
    }
    requests.push_back({source.name, source.text, source.headers, recs.back().kernel_name, device.arch(), {}});
  }
  std::vector<CompileInfo> infos = compile_all(compiler, requests, 0);
  session.set_problem(p, family.default_tolerance(p.dtype), seed);
  for (size_t i = 0; i < recs.size(); ++i) {
    EXPECT_TRUE(infos[i].ok) << recs[i].kernel_name << "\n" << infos[i].log;
    if (!infos[i].ok) continue;
    recs[i].compile = infos[i];
    session.run_candidate(recs[i], StoppingRule{}, 0, 0, /*verify_only=*/true);
  }
  return recs;
}

// What each gemm_wgmma test below sets up: a worker session in its own scratch folder, the gemm
// family and a compiler. gemm_wgmma runs on sm_90a only, so the tests skip elsewhere (runs_here).
struct WgmmaCheck {
  explicit WgmmaCheck(const std::string& name)
      : dir(test::scratch_dir(name)), session(session_options(dir)), family(find_family("gemm")), compiler(dir) {}
  bool runs_here() { return arch_facts(session.device()).arch == 90; }
  // A built-in sweep config (`path` under configs/), as the tuner reads it.
  SweepConfig builtin(const char* path) const { return parse_family_config(family, *find_embedded(path), path); }
  std::filesystem::path dir;
  Session session;
  const KernelFamily& family;
  NvrtcCompiler compiler;
};
constexpr const char* kSm90Only = "gemm_wgmma runs on sm_90a only";

Problem gemm_problem(int64_t m, int64_t n, int64_t k, const char* dtype, const char* layout) {
  return Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, dtype, {{"layout", layout}}};
}

// Expects every record to have passed (each failure names the problem, the kernel and why) and
// returns how many there were.
int expect_all_passed(const std::vector<CandidateRecord>& recs, const Problem& p) {
  for (const CandidateRecord& r : recs)
    EXPECT_EQ(r.disposition, Disposition::passed) << describe(p) << " " << r.kernel_name << ": " << r.reason;
  return static_cast<int>(recs.size());
}

// Removes the one constraint of `config` whose text is `text`: a test that runs what the built-in
// sweep prunes lifts it so, and fails loudly when the text has changed (the lift would otherwise
// remove nothing, and the test would check less than it says). Returns whether it removed one,
// for a test that should stop there (ASSERT_TRUE).
bool lift_constraint(SweepConfig& config, const std::string& text) {
  const size_t before = config.constraints.size();
  std::erase_if(config.constraints, [&](const Expr& e) { return e.text() == text; });
  EXPECT_EQ(config.constraints.size() + 1, before)
      << config.name << " has no constraint \"" << text << "\" to lift: the built-in config changed";
  return config.constraints.size() + 1 == before;
}

// gemm_wgmma's paths whose correctness hangs on a schedule or a shared-memory layout more than on
// a shape, every candidate of them: stream-K (ranges of k tiles cut across tiles, partial tiles
// summed by whoever arrives last) on one- and two-wave shapes, and the hybrid on shapes of two
// waves or more, ragged ones included; TF32 with
// M/N-major operands (wgmma's A from registers, whose rows the epilogue places; roles swapped
// when both are row-major, C stored transposed; B transposed in shared memory under a
// column-major A) in every layout, stream-K's summed partial tiles too; and gemm_wgmma_cp_async
// (operands copied by the producer warpgroup in 8-byte pieces, for leading dimensions TMA refuses)
// in every dtype, K-major and M/N-major operands, ragged edges.
TEST(GemmKernels, WgmmaStreamKTf32MajorsAndCopiedOperandsEveryCandidate) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-paths");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;

  struct PathCase {
    const char* config;
    Problem problem;
    // Only the candidates whose tunable `only` is not `plain` (every stream-K or split-tail one:
    // STREAM_K not 0; every split-K one: SPLIT_K not 1); every candidate when `only` is null.
    const char* only = nullptr;
    int plain = 0;
  };
  auto gemm = gemm_problem;
  const char* tma = "configs/gemm_wgmma.json";
  const char* copied = "configs/gemm_wgmma_cp_async.json";
  const char* stream_k = "STREAM_K";
  const char* split_k = "SPLIT_K";
  const std::vector<PathCase> path_cases = {
      {tma, gemm(1536, 1536, 1536, "fp16", "rr"), stream_k},   {tma, gemm(1000, 3000, 712, "bf16", "cc"), stream_k},
      {tma, gemm(1000, 1000, 1000, "fp32", "cr"), stream_k},   {tma, gemm(777, 2000, 1500, "fp32", "rr")},
      {tma, gemm(520, 264, 300, "fp32", "cr")},                {tma, gemm(260, 520, 200, "fp32", "cc")},
      {tma, gemm(1000, 1000, 1000, "fp32", "rr"), stream_k},   {tma, gemm(1000, 1000, 1000, "fp32", "cc"), stream_k},
      // Two waves of tiles or more: the hybrid (STREAM_K 2) streams a wave and the partial one,
      // then takes whole tiles.
      {tma, gemm(2000, 2200, 712, "bf16", "rr"), stream_k},    {tma, gemm(2100, 2100, 520, "fp32", "cr"), stream_k},
      {tma, gemm(100, 132, 4000, "fp32", "rr"), split_k, 1},
      {copied, gemm(1000, 3000, 4104, "fp8", "rc")},           {copied, gemm(520, 264, 1000, "fp8", "rc")},
      {copied, gemm(780, 1000, 300, "fp16", "cr")},            {copied, gemm(333, 264, 1004, "bf16", "rc")},
      {copied, gemm(300, 200, 1002, "fp32", "rc")},            {copied, gemm(264, 296, 1004, "fp16", "rr")},
  };
  int checked = 0, checked_copied = 0;
  for (size_t c = 0; c < path_cases.size(); ++c) {
    const Problem& p = path_cases[c].problem;
    SweepConfig config = w.builtin(path_cases[c].config);
    // gemm_wgmma_cp_async's config takes fp8 alone (its notes say why); its kernel is checked in
    // the other dtypes too, with that one constraint lifted.
    if (path_cases[c].config == copied && p.dtype != "fp8") lift_constraint(config, "elem_bytes == 1");
    const std::vector<CandidateRecord> recs = check_every_candidate(
        w.session, w.compiler, config, p, 2000 + c, path_cases[c].only, path_cases[c].plain, [](CandidateRecord&) { return true; });
    ASSERT_FALSE(recs.empty()) << "no " << config.name << " candidate"
                               << (path_cases[c].only ? std::string(" with ") + path_cases[c].only : "") << " for "
                               << describe(p);
    const int passed = expect_all_passed(recs, p);
    checked += passed;
    if (path_cases[c].config == copied) checked_copied += passed;
  }
  EXPECT_GE(checked, 12);
  EXPECT_GE(checked_copied, 6);
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// Stream-K's counter read (kernels/gemm_wgmma.cu): a part that starts its tile reads the tile's
// counter and, when the others are in, adds their partials without writing its own. In the
// schedules measured the read nearly always finds them in (results/h200/stream-k-s27), so the
// other way, where it misses and the part writes its partials and arrives like any other, is
// checked here with the read made to miss every time: the sums must still come out right, on
// stream-K candidates of a one-wave and a two-wave (hybrid) shape, six of each.
TEST(GemmKernels, WgmmaStreamKCounterReadThatMissesStillSums) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-counter-read");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;
  ASSERT_NE(find_embedded("kernels/gemm_wgmma.cu")->find("seen_all = before + weight == whole_weight;"),
            std::string_view::npos)
      << "the counter read this edit replaces has moved";
  const std::vector<Problem> problems = {gemm_problem(1536, 1536, 1536, "fp16", "rr"),
                                         gemm_problem(2000, 2200, 712, "bf16", "rr")};
  const SweepConfig config = w.builtin("configs/gemm_wgmma.json");
  std::string (*missing)(std::string) = [](std::string text) {
    const std::string from = "seen_all = before + weight == whole_weight;";
    return text.replace(text.find(from), from.size(), "seen_all = false;");
  };
  for (size_t c = 0; c < problems.size(); ++c) {
    int kept = 0;
    const std::vector<CandidateRecord> summed = check_every_candidate(
        w.session, w.compiler, config, problems[c], 5000 + c, "STREAM_K", 0, [&](CandidateRecord&) { return kept++ < 6; },
        missing);
    EXPECT_EQ(expect_all_passed(summed, problems[c]), 6) << describe(problems[c]);
  }
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// gemm_wgmma's split tail (STREAM_K 3): the tiles of the whole waves run whole, and each tile of
// the partial last wave is split into SPLIT_K k slices summed by split-K's fix-up, whose slots and
// counters count from the first tail tile. One candidate of each combination of tile, epilogue,
// consumers, cluster, blocks an SM and split, on shapes of one whole wave and a partial one (132
// SMs), ragged in M, N and K: TF32 with both operands row-major (roles swapped, C stored
// transposed), 16-bit K-major and M/N-major, fp8 with per-tensor and with block scales. A tile
// counter left nonzero for the next launch fails the candidate too (the workload's guarded
// counters).
TEST(GemmKernels, WgmmaSplitTailEveryCombination) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-split-tail");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;
  auto gemm = gemm_problem;
  Problem block = gemm(2000, 2200, 2048, "fp8", "rc");
  block.options["scaling"] = "block";
  const std::vector<Problem> problems = {gemm(2100, 2092, 1100, "fp32", "rr"), gemm(2050, 2200, 1040, "fp16", "rc"),
                                         gemm(2104, 2056, 1096, "bf16", "cc"), gemm(2000, 2304, 2112, "fp8", "rc"),
                                         block};
  const SweepConfig config = w.builtin("configs/gemm_wgmma.json");
  int checked = 0, clustered = 0, direct = 0, paired = 0;
  std::set<int64_t> splits;
  for (size_t c = 0; c < problems.size(); ++c) {
    std::set<std::vector<int64_t>> seen;
    auto keep = [&](CandidateRecord& r) {
      const Bindings& q = r.params;
      return q.at("STREAM_K") == 3 &&
             seen.insert({q.at("BLOCK_M"), q.at("BLOCK_N"), q.at("EPILOGUE"), q.at("NUM_CONSUMERS"), q.at("CLUSTER_M"),
                          q.at("BLOCKS_PER_SM"), q.at("SPLIT_K")})
                 .second;
    };
    const std::vector<CandidateRecord> recs =
        check_every_candidate(w.session, w.compiler, config, problems[c], 7000 + c, nullptr, 0, keep);
    EXPECT_FALSE(recs.empty()) << "no split-tail candidate for " << describe(problems[c]);
    checked += expect_all_passed(recs, problems[c]);
    for (const CandidateRecord& r : recs) {
      splits.insert(r.params.at("SPLIT_K"));
      clustered += r.params.at("CLUSTER_M") > 1;
      direct += r.params.at("EPILOGUE") == 0;
      paired += r.params.at("BLOCKS_PER_SM") == 2;
    }
  }
  EXPECT_GE(checked, 20);
  EXPECT_GE(paired, 1) << "no split tail with two blocks an SM ran";
  EXPECT_EQ(splits.size(), 2u) << "split tails of 2 and of 4 k slices should both have run";
  EXPECT_GE(clustered, 1);
  EXPECT_GE(direct, 1);
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// gemm_wgmma's PINGPONG, every candidate: the two consumers take the CTA's tiles in turns, each
// skipping the other's stages of the shared ring, so a wrong skip count or phase hangs or reads
// the other tile's operands. Shapes of one tile a CTA or fewer (the second consumer idle), of two
// or more with an odd count (the last turn the first consumer's), ragged edges, each dtype the
// schedule takes, both operand majors of 16-bit types, tiles of 128 rows up to 192 wide (192
// accumulators a thread, past a cooperative consumer's 128).
TEST(GemmKernels, WgmmaPingpongEveryCandidate) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-pingpong");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;
  auto gemm = gemm_problem;
  const std::vector<Problem> problems = {gemm(1500, 2000, 1000, "fp16", "rr"), gemm(3000, 2056, 520, "bf16", "cc"),
                                         gemm(1000, 1536, 2048, "fp8", "rc"), gemm(200, 264, 3000, "fp16", "rc")};
  SweepConfig config = w.builtin("configs/gemm_wgmma.json");
  // The built-in sweep searches only fp8's pingpong tiles wider than a cooperative consumer's (its
  // notes say why); the kernel takes every tile this constraint prunes, so the test lifts it.
  ASSERT_TRUE(lift_constraint(config, "PINGPONG == 0 || (elem_bytes == 1 && WG_M * BLOCK_N / 128 > 128)"));
  int checked = 0, wide = 0;
  for (size_t c = 0; c < problems.size(); ++c) {
    const std::vector<CandidateRecord> recs = check_every_candidate(
        w.session, w.compiler, config, problems[c], 4000 + c, "PINGPONG", 0, [](CandidateRecord&) { return true; });
    EXPECT_FALSE(recs.empty()) << "no pingpong candidate for " << describe(problems[c]);
    checked += expect_all_passed(recs, problems[c]);
    // More accumulators a thread than a cooperative consumer holds: whole 128-row tiles over 128 wide.
    for (const CandidateRecord& r : recs) wide += r.params.at("BLOCK_M") == 128 && r.params.at("BLOCK_N") > 128;
  }
  EXPECT_GE(checked, 20);
  EXPECT_GE(wide, 4) << "fewer than four pingpong tiles of more than 128 accumulators a thread ran";
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// gemm_wgmma's tiles 144-240 wide (BLOCK_N a multiple of 16 but not of 64; wgmma N the same): the
// B tile's rows, the staged epilogues' whole panels and the columns past them stored directly are
// the parts of the kernel that see the width. One candidate of each combination of width, tile
// rows, blocks an SM, epilogue, consumers, cluster, split-K and stream-K (all of them, some 1500,
// ran past 150 s), on
// ragged N (a last tile part past the edge), M and K in each dtype and layout that takes them (fp8
// rc, fp16 rc, bf16 cc), split-K over a long K, and a two-wave square where stream-K's exist.
TEST(GemmKernels, WgmmaNarrowPanelTiles) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-narrow-panels");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;
  auto gemm = gemm_problem;
  const std::vector<Problem> problems = {gemm(1000, 2600, 1040, "fp8", "rc"), gemm(520, 1000, 776, "fp16", "rc"),
                                         gemm(1000, 1304, 600, "bf16", "cc"), gemm(96, 1200, 8192, "fp8", "rc"),
                                         gemm(2000, 2000, 2048, "fp8", "rc")};
  const SweepConfig config = w.builtin("configs/gemm_wgmma.json");
  int checked = 0, split = 0, streamed = 0;
  std::set<int64_t> epilogues;
  for (size_t c = 0; c < problems.size(); ++c) {
    std::set<std::vector<int64_t>> seen;
    const std::vector<CandidateRecord> recs =
        check_every_candidate(w.session, w.compiler, config, problems[c], 6000 + c, nullptr, 0, [&](CandidateRecord& r) {
          const Bindings& q = r.params;
          return q.at("BLOCK_N") % 64 != 0 &&
                 seen.insert({q.at("BLOCK_N"), q.at("BLOCK_M"), q.at("BLOCKS_PER_SM"), q.at("EPILOGUE"),
                              q.at("NUM_CONSUMERS"), q.at("CLUSTER_M"), q.at("SPLIT_K"), q.at("STREAM_K")})
                     .second;
        });
    EXPECT_FALSE(recs.empty()) << "no narrow-panel candidate for " << describe(problems[c]);
    checked += expect_all_passed(recs, problems[c]);
    for (const CandidateRecord& r : recs) {
      epilogues.insert(r.params.at("EPILOGUE"));
      if (r.params.at("SPLIT_K") > 1) ++split;
      if (r.params.at("STREAM_K") > 0) ++streamed;
    }
  }
  EXPECT_GE(checked, 40);
  EXPECT_EQ(epilogues.size(), 3u);
  EXPECT_GE(split, 1);
  EXPECT_GE(streamed, 1);
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// fp8 with block scales (a scale per 1 x 128 of A and per 128 x 128 of B): every candidate of both
// wgmma configs on ragged shapes (a partial last k block, partial last column and row blocks,
// stream-K's hybrid, split-K over long K, clusters past M; the scales copied by warp 1 and, where M
// is over 128 and a multiple of 4, by the TMA thread in bulk, and in the cp.async config by the
// copying producer's warps),
// with the sums added in at once or a tile later, passes;
// and the same kernels built with BLOCK_SCALED 0,
// which apply the first scale of each as if it were the tensor's, are rejected as incorrect (the
// scales vary by 2x either way from block to block).
TEST(GemmKernels, WgmmaBlockScaledEveryCandidateAndOneScaleATensorRejected) {
  KTUNE_REQUIRE_GPU();
  WgmmaCheck w("gemm-wgmma-block-scaled");
  if (!w.runs_here()) GTEST_SKIP() << kSm90Only;
  auto block = [](int64_t m, int64_t n, int64_t k) {
    return Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, "fp8", {{"layout", "rc"}, {"scaling", "block"}}};
  };
  struct BlockCase {
    const char* config;
    Problem problem;
    const char* only = nullptr;
    int plain = 0;
  };
  const std::vector<BlockCase> block_cases = {
      {"configs/gemm_wgmma.json", block(333, 2000, 1040)},
      {"configs/gemm_wgmma.json", block(64, 776, 7168)},
      {"configs/gemm_wgmma.json", block(2000, 2200, 1024), "STREAM_K"},
      {"configs/gemm_wgmma.json", block(96, 256, 16384), "SPLIT_K", 1},
      // M > 128, a multiple of 4: bulk copies (BLOCK_SCALED 2), and a cluster's second CTA
      // wholly past M, which copies no A scales.
      {"configs/gemm_wgmma.json", block(300, 1000, 1024), "CLUSTER_M", 1},
      {"configs/gemm_wgmma_cp_async.json", block(520, 264, 1000)},
  };
  int checked = 0, bulk = 0;
  for (size_t c = 0; c < block_cases.size(); ++c) {
    const BlockCase& bc = block_cases[c];
    const SweepConfig config = w.builtin(bc.config);
    const std::vector<CandidateRecord> recs = check_every_candidate(w.session, w.compiler, config, bc.problem, 3000 + c,
                                                                    bc.only, bc.plain, [](CandidateRecord&) { return true; });
    EXPECT_FALSE(recs.empty()) << "no " << config.name << " candidate for " << describe(bc.problem);
    checked += expect_all_passed(recs, bc.problem);
    for (const CandidateRecord& r : recs)
      if (r.kernel_name.find(", 2, 0>") != std::string::npos) ++bulk;  // BLOCK_SCALED 2, PINGPONG 0
  }
  EXPECT_GE(checked, 20);
  // Candidates compiled for bulk copies (M = 2000 and 300); they take them at run time, since the
  // test's scale buffers are 16-byte aligned.
  EXPECT_GE(bulk, 10);
  // Planted: the first three candidates of the first case as per-tensor kernels.
  const SweepConfig config = w.builtin("configs/gemm_wgmma.json");
  int planted = 0;
  const std::vector<CandidateRecord> one_scale =
      check_every_candidate(w.session, w.compiler, config, block_cases[0].problem, 3000, nullptr, 0, [&](CandidateRecord& r) {
        // The kernel's last two template arguments are BLOCK_SCALED (1 here: M = 333 is not a
        // multiple of 4, so warp 1 copies the scales) and PINGPONG (0). A name that does not end
        // so plants nothing: the test fails rather than pass on it.
        const std::string tail = ", 1, 0>";
        if (planted == 3) return false;
        const bool ends_so = r.kernel_name.size() > tail.size() &&
                             r.kernel_name.compare(r.kernel_name.size() - tail.size(), tail.size(), tail) == 0;
        EXPECT_TRUE(ends_so) << r.kernel_name << " does not end with BLOCK_SCALED 1, PINGPONG 0";
        if (!ends_so) return false;
        ++planted;
        r.kernel_name.replace(r.kernel_name.size() - tail.size(), tail.size(), ", 0, 0>");
        return true;
      });
  EXPECT_EQ(one_scale.size(), 3u);
  for (const CandidateRecord& r : one_scale)
    EXPECT_EQ(r.disposition, Disposition::incorrect) << r.kernel_name << ": " << r.reason;
  EXPECT_EQ(w.session.worker_restarts(), 0);
}

// NVFP4 weights (gemm_nvfp4): every candidate of the decode config passes on shapes with a partial
// last row tile, a K that is not whole 128-k chunks, activation rows that fill neither mma column
// tile, split-K over long K, in both dtypes; every candidate of the prefill config (Hopper) on
// shapes with partial token and weight-row tiles, an odd number of 64-k stages, and the fewest rows
// it takes; and the same kernels with one part of the format misread (the tensor scale ignored,
// the signs dropped in the shared decode, a group given another group's or row's scale, the wrong
// byte of a word decoded) are rejected as incorrect. cuBLAS on the dequantized weights passes the
// same check.

// A few samples, enough to run and check a baseline (its time is not what is tested).
StoppingRule quick_rule() {
  StoppingRule rule;
  rule.min_samples = 3;
  rule.min_time_ms = 1;
  rule.max_time_ms = 50;
  return rule;
}

// `text` with its one `from` replaced by `to` (a test failure, and the text unchanged, when `from`
// is not there: a planted fault that plants nothing must not pass for a rejected one).
std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "the kernel source has no \"" << from << "\" to plant a fault in";
    return text;
  }
  return text.replace(at, from.size(), to);
}
std::string nvfp4_without_tensor_scale(std::string s) {
  return replace_once(s, "const float factor = *tensor_scale * D::EPILOGUE_FACTOR;",
                            "const float factor = D::EPILOGUE_FACTOR;");
}
// The kernel with nvfp4.cuh's text in place of its include, the signs dropped there.
std::string nvfp4_without_signs(std::string s) {
  const std::string header(*find_embedded("kernels/nvfp4.cuh"));
  return replace_once(s, "#include \"nvfp4.cuh\"",
                      replace_once(header, "const unsigned sign = w << (12 - 4 * I);", "const unsigned sign = 0u;"));
}
std::string nvfp4_first_group_scale(std::string s) {
  return replace_once(s, "const unsigned s0 = scale[0][w / 2], s1 = scale[1][w / 2];",
                            "const unsigned s0 = scale[0][0], s1 = scale[1][0];");
}
std::string nvfp4_wgmma_other_rows_scale(std::string s) {
  return replace_once(s, "f[step][2] = D::mul(decode_byte<T>(words[0][2 * step + 1], select), s0[j]);",
                      "f[step][2] = D::mul(decode_byte<T>(words[0][2 * step + 1], select), s1[j]);");
}
std::string nvfp4_wgmma_wrong_byte(std::string s) {
  return replace_once(s, "const unsigned select = 0x4440u | q;", "const unsigned select = 0x4440u | (q ^ 1);");
}

// Checks every candidate of `config_path` on `problems` (all must pass, at least `at_least` of
// them), then the first four candidates of the first problem with each of `faults` planted (all
// must be rejected as incorrect). Returns the records of the unplanted candidates.
std::vector<CandidateRecord> check_nvfp4_config(Session& session, NvrtcCompiler& compiler, const char* config_path,
                        const std::vector<Problem>& problems, int at_least,
                        const std::vector<std::string (*)(std::string)>& faults) {
  const KernelFamily& family = find_family("gemm_nvfp4");
  const SweepConfig config = parse_family_config(family, *find_embedded(config_path), config_path);
  std::vector<CandidateRecord> checked;
  for (size_t c = 0; c < problems.size(); ++c) {
    const std::vector<CandidateRecord> recs =
        check_every_candidate(session, compiler, config, problems[c], 4000 + c, nullptr, 0, [](CandidateRecord&) { return true; });
    EXPECT_FALSE(recs.empty()) << "no candidate for " << describe(problems[c]);
    for (const CandidateRecord& r : recs) {
      EXPECT_EQ(r.disposition, Disposition::passed) << describe(problems[c]) << " " << r.kernel_name << ": " << r.reason;
      checked.push_back(r);
    }
  }
  EXPECT_GE(static_cast<int>(checked.size()), at_least) << config_path;
  for (auto edit : faults) {
    int planted = 0;
    const std::vector<CandidateRecord> wrong = check_every_candidate(
        session, compiler, config, problems[0], 4000, nullptr, 0, [&](CandidateRecord&) { return planted++ < 4; }, edit);
    EXPECT_EQ(wrong.size(), 4u);
    for (const CandidateRecord& r : wrong)
      EXPECT_EQ(r.disposition, Disposition::incorrect) << r.kernel_name << ": " << r.reason;
  }
  return checked;
}

TEST(GemmKernels, Nvfp4WeightsEveryCandidateAndMisreadFormatsRejected) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("gemm-nvfp4");
  Session session(session_options(dir));
  const KernelFamily& family = find_family("gemm_nvfp4");
  NvrtcCompiler compiler(dir);
  auto problem = [](int64_t m, int64_t n, int64_t k, const char* dtype) {
    return Problem{"gemm_nvfp4", {{"M", m}, {"N", n}, {"K", k}}, dtype, {}};
  };
  // 3 x 136 x 16640: 130 chunks of 128 k, so that warps along K take 4 or more each (16 of them
  // alone or split in two, or fewer), which is where the config offers AHEAD (the next chunk
  // loaded before this one's decode, with one column tile); N is no multiple of a 16-row tile.
  const std::vector<CandidateRecord> decode = check_nvfp4_config(
      session, compiler, "configs/gemm_nvfp4.json",
      {problem(1, 1000, 1056, "bf16"), problem(5, 264, 4128, "fp16"), problem(11, 520, 2080, "bf16"),
       problem(16, 72, 14336, "fp16"), problem(3, 136, 16640, "bf16")},
      40, {nvfp4_without_tensor_scale, nvfp4_without_signs, nvfp4_first_group_scale});
  EXPECT_GE(std::count_if(decode.begin(), decode.end(),
                          [](const CandidateRecord& r) { return r.params.count("AHEAD") && r.params.at("AHEAD") == 1; }),
            2)
      << "fewer than the two AHEAD candidates of 3 x 136 x 16640 ran";
  if (arch_facts(session.device()).arch == 90)
    check_nvfp4_config(session, compiler, "configs/gemm_nvfp4_wgmma.json",
                       {problem(300, 1000, 1088, "bf16"), problem(16, 200, 4096, "fp16"), problem(257, 136, 640, "fp16"),
                        // more tiles than SMs, a few past the last whole wave: TAIL 1 splits those
                        problem(1000, 4352, 2048, "bf16")},
                       60,
                       {nvfp4_without_tensor_scale, nvfp4_without_signs, nvfp4_wgmma_other_rows_scale,
                        nvfp4_wgmma_wrong_byte});

  // The baseline: cuBLAS on the dequantized 16-bit weights, the tensor scale as alpha.
  session.set_problem(problem(11, 520, 2080, "bf16"), family.default_tolerance("bf16"), 4100);
  const StoppingRule rule = quick_rule();
  CandidateRecord ref = session.time_baselines(rule, 5).front();
  EXPECT_EQ(ref.disposition, Disposition::passed) << ref.reason;
  ASSERT_TRUE(ref.error.has_value());
  EXPECT_LT(ref.error->norm_rel, family.default_tolerance("bf16").max_norm_rel);
  EXPECT_EQ(session.worker_restarts(), 0);
}

// The fp8 baseline (cuBLASLt with device-side scales and fast accumulation) matches the reference
// made from the same fp8 inputs in fp32: operand order, TN form and scale pointers are right (an
// ignored scale would be off by 4x or more).
TEST(Fp8Baseline, CublasLtMatchesTheReference) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("fp8-baseline");
  Session session(session_options(dir));
  if (arch_facts(session.device()).arch < 89) GTEST_SKIP() << "no fp8 tensor cores on " << session.device().name;
  const KernelFamily& family = find_family("gemm");
  Problem p{"gemm", {{"M", 1000}, {"N", 3008}, {"K", 4096}}, "fp8", {{"layout", "rc"}}};
  session.set_problem(p, family.default_tolerance("fp8"), 11);
  const StoppingRule rule = quick_rule();
  CandidateRecord ref = session.time_baselines(rule, 5).front();
  EXPECT_EQ(ref.disposition, Disposition::passed) << ref.reason;
  EXPECT_EQ(ref.kernel_name, "cublasLtMatmul (fp8 e4m3, fast accumulation, bf16 out)");
  ASSERT_TRUE(ref.error.has_value());
  EXPECT_EQ(ref.error->nonfinite, 0);
  EXPECT_LT(ref.error->norm_rel, family.default_tolerance("fp8").max_norm_rel);
  // Not bit-identical: the output is bf16 and the sums are ordered differently.
  EXPECT_GT(ref.error->norm_rel, 0);

  // Block scales: cuBLASLt's VEC128_32F (A) and BLK128x128_32F (B) read the layouts the workload
  // writes, and its output passes the same check (a scale read from the wrong block would not).
  Problem block{"gemm", {{"M", 1000}, {"N", 3008}, {"K", 4096}}, "fp8", {{"layout", "rc"}, {"scaling", "block"}}};
  session.set_problem(block, family.default_tolerance("fp8"), 12);
  CandidateRecord block_ref = session.time_baselines(rule, 5).front();
  EXPECT_EQ(block_ref.disposition, Disposition::passed) << block_ref.reason;
  EXPECT_EQ(block_ref.kernel_name, "cublasLtMatmul (fp8 e4m3, 1x128 and 128x128 block scales, bf16 out)");
  ASSERT_TRUE(block_ref.error.has_value());
  EXPECT_LT(block_ref.error->norm_rel, family.default_tolerance("fp8").max_norm_rel);
}

// The timing path reports self-consistent statistics, and cuBLAS on a large fp16 GEMM lands in
// a physically possible range (far below no GPU, far above any GPU is a timing bug).
TEST(Timing, StatisticsAreConsistentAndPlausible) {
  KTUNE_REQUIRE_GPU();
  auto dir = test::scratch_dir("timing");
  Session session(session_options(dir));
  const KernelFamily& family = find_family("gemm");
  Problem p{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
  session.set_problem(p, family.default_tolerance("fp16"), 7);
  StoppingRule rule;
  CandidateRecord ref = session.time_baselines(rule, 25).front();
  ASSERT_TRUE(ref.time.has_value());
  const TimeStats& t = *ref.time;
  EXPECT_EQ(ref.disposition, Disposition::passed) << ref.reason;
  EXPECT_GE(t.n, static_cast<size_t>(rule.min_samples));
  EXPECT_EQ(t.n, ref.samples_ms.size());
  EXPECT_LE(t.min, t.p20);
  EXPECT_LE(t.p20, t.median);
  EXPECT_LE(t.median, t.p80);
  EXPECT_LE(t.p80, t.max);
  const double tflops = family.cost(p).flops / (t.median * 1e-3) / 1e12;
  EXPECT_GT(tflops, 20.0);
  EXPECT_LT(tflops, 5000.0);
  // Samples are real measurements of separate runs: they are not all identical.
  EXPECT_GT(t.max, t.min);
}

}  // namespace
}  // namespace ktune
