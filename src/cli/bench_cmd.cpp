// `ktune bench SUITE.json`: measure every problem of a suite (bench/suite.hpp) with its cached
// best configuration against the reference, with enough samples for `ktune compare`. A problem
// without a cached configuration is tuned first (the usual sweep, cached), unless --no-tune,
// which lists what is missing and exits 1. Writes <stem>.json (raw samples), .csv, .md and, with
// --format gbench, .gbench.json (Google Benchmark JSON, store/gbench_json.hpp); the tunings it
// did, every candidate's record and reason, go to <stem>.tuning.json and .csv.
//
// The reference and the best configuration are measured in --rounds rounds (tune/interleaved.hpp):
// in each, one worker run in which the two alternate sample by sample, so clock, power and
// temperature drift hit both alike. Every round checks the output on poisoned buffers before and
// after its samples. --plant-delay makes the kernel a given fraction slower on the GPU: the
// regression gate's self-test (docs/reports-and-ci.md, "Benchmarks and CI gating"). --configs-from RESULTS.json
// measures the configurations a results file records instead of the cache's: a committed result
// re-measured by a new build or timer, without tuning again.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "measure/stats.hpp"
#include "bench/suite.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/current_winners.hpp"
#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "store/cache.hpp"
#include "store/gbench_json.hpp"
#include "scale/gpu_list.hpp"
#include "scale/shard.hpp"
#include "store/rejections.hpp"
#include "store/dispatch_table.hpp"
#include "store/regret.hpp"
#include "store/results.hpp"
#include "tune/interleaved.hpp"
#include "util/fs.hpp"

namespace ktune::cli {
namespace {

struct BenchFlags {
  std::string suite;
  int samples = 400;  // per kernel, over all rounds
  int rounds = 20;    // the gate's replication unit (bench/compare.hpp): enough to resolve 5%
  bool no_tune = false;
  std::string format = "ktune";
  std::string stem;
  uint64_t seed = 20261121;
  double plant_delay_percent = 0;
  std::vector<std::string> configs_from;
  std::string gpus;   // --gpus: "all" or "0,1"; empty: the one GPU a worker gets
  std::string shard;  // "I/N"; default: the job array's (scale/shard.hpp), else the whole suite
  std::string nearest_from;  // a cache folder whose nearest rows are timed beside each winner
};

// A suite problem with everything that can be resolved before the GPU is touched.
struct Planned {
  Problem problem;
  const KernelFamily* family = nullptr;
  std::vector<Sweep> sweeps;  // tuned together; the cached winner comes from one of them
};

std::vector<SweepConfig> configs_for(const SuiteProblem& sp, const Suite& suite, const CommonFlags& common,
                                     const KernelFamily& family) {
  if (sp.config.empty()) return load_configs(common, family);
  SweepConfig config;
  if (sp.config.ends_with(".json")) {
    const std::filesystem::path path = suite.base_dir / sp.config;
    if (!std::filesystem::exists(path))
      throw ConfigError(fmt::format("{}: config {}: no such file", describe(sp.problem), path.string()));
    config = load_family_config(family, path);
  } else {
    const std::string path = "configs/" + sp.config + ".json";
    if (!find_embedded(path))
      throw ConfigError(fmt::format("{}: no built-in config '{}' (give a path ending in .json for a file)",
                                    describe(sp.problem), sp.config));
    config = embedded_config(path, family);
  }
  if (config.family != family.name())
    throw ConfigError(fmt::format("{}: config '{}' is for family '{}'", describe(sp.problem), config.name,
                                  config.family));
  return {config};
}

// The cache entry Tuner::tune would answer from (the same key), so that --no-tune can tell what
// is missing without tuning it.
std::optional<CacheEntry> lookup(const BestConfigCache& cache, const Planned& p, const DeviceInfo& device,
                                 const TuneOptions& options) {
  std::optional<CacheEntry> hit =
      cache.find(sweeps_cache_key(active_sweeps(p.sweeps, device), p.problem, device, options));
  // As the Tuner does: a guided search's winner does not answer for an exhaustive one.
  if (hit && options.search.exhaustive && !hit->exhaustive()) return std::nullopt;
  return hit;
}

std::string config_names(const Planned& p) {
  std::string names;
  for (const Sweep& s : p.sweeps) names += (names.empty() ? "" : ", ") + s.config.name;
  return names;
}

// The best configuration of a problem: the cache's answer, else a tuning (which caches it).
struct Winner {
  std::optional<Bindings> params;  // none: no candidate passed
  std::string config;              // the sweep config it comes from
  std::optional<ProblemResult> tuning;  // every record of the tuning, where this run tuned it
};

// The configuration each problem of the results files was measured with (recorded_winner), by
// Problem::describe(); the first file that has a problem answers for it.
std::map<std::string, Winner> recorded_winners(const std::vector<std::string>& files) {
  std::map<std::string, Winner> out;
  for (const std::string& file : files) {
    if (!std::filesystem::exists(file)) throw ConfigError(fmt::format("--configs-from {}: no such file", file));
    for (const ProblemResult& r : read_results(file, nullptr))
      if (std::optional<size_t> win = recorded_winner(r))
        out.emplace(describe(r.problem), Winner{r.records[*win].params, r.records[*win].config_name, std::nullopt});
  }
  return out;
}

Winner find_winner(Tuner& tuner, const Planned& p, const std::optional<CacheEntry>& cached, int top,
                   std::mutex& print_mutex) {
  std::optional<CacheEntry> entry = cached;
  if (!entry) {
    TuneResult tuned = tuner.tune(p.sweeps, p.problem);
    entry = tuned.cached;  // the Tuner found one after all
    if (!entry) {
      std::lock_guard lock(print_mutex);  // other GPUs' problems print too
      fmt::print("\n{}: no cached best configuration, tuned {}", describe(p.problem), config_names(p));
      print_tune_result(tuned, top);
      if (!tuned.best) return {{}, {}, std::move(tuned.result)};
      const CandidateRecord& win = tuned.result.records[*tuned.best];
      return {win.params, win.config_name, std::move(tuned.result)};
    }
  }
  return {entry->params, entry->winner_config, std::nullopt};
}

// The winner's record, compiled: ready to run (not_run, compile.ok), or why it cannot run.
CandidateRecord compile_best(Compiler& compiler, const Planned& p, const Winner& winner, const DeviceInfo& device) {
  CandidateRecord best;
  best.source = "ktune";
  best.config_name = winner.config;
  const Sweep* sweep = nullptr;
  for (const Sweep& s : p.sweeps)
    if (s.config.name == winner.config) sweep = &s;
  if (!winner.params) {
    best.reason = "no candidate of the sweep passed";
    if (winner.tuning)
      if (const std::vector<Rejection> why = top_rejections(*winner.tuning, 1); !why.empty())
        best.reason += fmt::format(" (most common: {} {}: {})", why.front().count, why.front().disposition,
                                   why.front().example);
    return best;
  }
  best.params = *winner.params;
  if (!sweep) {
    best.reason = fmt::format("the cached winner comes from config '{}', which is not among {}", winner.config,
                              config_names(p));
    return best;
  }
  best.params = recorded_params(sweep->config, std::move(best.params));
  Candidate cand = make_candidate(sweep->config, best.params, p.family->context(p.problem, arch_facts(device)),
                                  p.family->placeholders(p.problem));
  best.kernel_name = cand.kernel_name;
  best.launch = cand.launch;
  if (!cand.valid) {
    best.disposition = Disposition::invalid;
    best.reason = cand.invalid_reason;
    return best;
  }
  const KernelSource& source = sweep->source;
  best.compile =
      compiler.compile(CompileRequest{source.name, source.text, source.headers, cand.kernel_name, device.arch(), {}});
  if (!best.compile.ok) {
    best.disposition = Disposition::compile_failed;
    best.reason = best.compile.log;
  }
  return best;
}

bool ready(const CandidateRecord& best) { return best.disposition == Disposition::not_run && best.compile.ok; }

// One GPU's part of a bench: its worker, a compiler and a cache handle of its own, its tuner.
// Every candidate of a problem, and the problem's baseline, run on one lane's GPU.
struct Lane {
  Lane(std::string label, SessionOptions session_options, const std::filesystem::path& cache_dir, TuneOptions tune)
      : label(std::move(label)),
        session(std::move(session_options)),
        compiler(cache_dir),
        cache(cache_dir / "best_configs.json"),
        tuner(session, compiler, cache, std::move(tune)) {}
  std::string label;  // "GPU 1" (empty without --gpus)
  Session session;
  NvrtcCompiler compiler;
  BestConfigCache cache;
  Tuner tuner;
};

void print_row(const ProblemResult& r) {
  for (const CandidateRecord& rec : r.records) {
    const std::string label = rec.is_baseline() ? rec.kernel_name : short_params(rec.params);
    if (rec.disposition != Disposition::passed || !rec.time) {
      fmt::print("  {:<7} {}: {} {}\n", rec.source, to_string(rec.disposition), rec.reason, label);
      continue;
    }
    fmt::print("  {:<7} {:>9.4f} ms  {:>12}  {:>7} baseline  n={:<4}{}  {}{}\n", rec.source,
               rec.time->median, rate_text(r.problem, rec.tflops, rec.gbps), ratio_text(rec.ratio_vs_baseline), rec.time->n, rec.clocks_text().empty() ? "" : " " + rec.clocks_text(), label,
               rec.reason.empty() ? "" : "  (" + rec.reason + ")");
  }
}

}  // namespace

void setup_bench(CLI::App& app, int& exit_code) {
  struct Options {
    BenchFlags bench;
    CommonFlags common;
    MeasureFlags measure;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "measure a suite's problems with their cached best configurations against each family's library baseline");
  cmd->add_option("suite", opts->bench.suite, "suite JSON, e.g. suites/default.json")->required();
  cmd->add_option("--samples", opts->bench.samples, "timed samples per kernel and problem")->capture_default_str();
  cmd->add_option("--rounds", opts->bench.rounds, "turns the reference and the kernel take, samples split among them")
      ->capture_default_str();
  cmd->add_flag("--no-tune", opts->bench.no_tune, "never tune: list the problems without a cached config, exit 1");
  cmd->add_option("--format", opts->bench.format, "gbench: also write Google Benchmark JSON (<stem>.gbench.json)")
      ->check(CLI::IsMember({"ktune", "gbench"}))
      ->capture_default_str();
  cmd->add_option("--stem", opts->bench.stem, "file name stem of the outputs (default: bench-<suite>-<UTC time>)");
  cmd->add_option("--seed", opts->bench.seed, "input seed")->capture_default_str();
  cmd->add_option("--configs-from", opts->bench.configs_from,
                  "measure the configurations these results files record (a problem they lack is tuned as usual)");
  cmd->add_option("--plant-delay", opts->bench.plant_delay_percent,
                  "make every tuned kernel this many percent slower on the GPU (tests the regression gate)")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--nearest-from", opts->bench.nearest_from,
                  "a cache folder: also time, beside each problem's own winner and in the same rounds, the "
                  "configuration that folder's nearest tuned shape would answer with (ktune lookup, the runtime "
                  "library); the regrets go to <stem>.regret.json and FOLDER/regret.json, which ktune lookup reads");
  cmd->add_option("--gpus", opts->bench.gpus,
                  "all | 0,1,...: spread the problems over these GPUs, a worker each (every candidate of a problem "
                  "runs on one GPU); one results file and cache");
  cmd->add_option("--shard", opts->bench.shard,
                  "I/N: only the suite's problems whose index is I modulo N (default: a Slurm or Kubernetes job "
                  "array's task; then `ktune merge` the shards' results and caches)");
  add_common_flags(*cmd, opts->common);
  add_measure_flags(*cmd, opts->measure);  // how problems without a cached config are tuned
  cmd->callback([opts, &exit_code] {
    const BenchFlags& flags = opts->bench;
    const MeasureFlags& measure = opts->measure;
    if (flags.rounds < 1) throw ConfigError("--rounds must be at least 1");
    if (flags.samples < flags.rounds)
      throw ConfigError(fmt::format("--samples {} is fewer than --rounds {}", flags.samples, flags.rounds));
    if (flags.no_tune && measure.retune) throw ConfigError("--no-tune and --retune contradict each other");
    if (!std::filesystem::exists(flags.suite)) throw ConfigError(fmt::format("{}: no such file", flags.suite));
    const Suite suite = load_suite(flags.suite);
    const std::optional<Shard> shard = !flags.shard.empty() ? std::optional<Shard>(parse_shard(flags.shard))
                                                            : shard_from_environment(std::getenv);

    // All bad input is reported before any GPU work.
    std::vector<Planned> plan;
    for (size_t index : shard_items(suite.problems.size(), shard.value_or(Shard{}))) {
      const SuiteProblem& sp = suite.problems[index];
      Planned p;
      p.problem = sp.problem;
      p.family = &find_family(sp.problem.family);
      for (SweepConfig& config : configs_for(sp, suite, opts->common, *p.family)) {
        KernelSource source = resolve_kernel_source(config, opts->common.kernel);
        p.sweeps.push_back({std::move(config), std::move(source)});
      }
      plan.push_back(std::move(p));
    }

    const std::map<std::string, Winner> recorded =
        flags.configs_from.empty() ? std::map<std::string, Winner>{} : recorded_winners(flags.configs_from);
    std::vector<DispatchRow> nearest_table;
    if (!flags.nearest_from.empty()) {
      const std::filesystem::path file = std::filesystem::path(flags.nearest_from) / "best_configs.json";
      if (!std::filesystem::exists(file)) throw ConfigError(fmt::format("--nearest-from {}: no cache there", flags.nearest_from));
      std::vector<std::string> notes;
      nearest_table = dispatch_table(current_winners(BestConfigCache(file).list(), notes));
    }
    std::vector<RegretEntry> regrets;  // with print_mutex held

    // One lane per GPU: without --gpus the one GPU a plain worker gets; with it, a worker per
    // listed GPU, each shown only its own (CUDA_VISIBLE_DEVICES).
    const std::filesystem::path cache_root = cache_dir(opts->common);
    TuneOptions tune = tune_options(opts->common, measure);
    std::vector<std::unique_ptr<Lane>> lanes;
    if (flags.gpus.empty()) {
      lanes.push_back(std::make_unique<Lane>("", session_options(opts->common, measure), cache_root, tune));
      lanes.front()->session.device();  // NoGpuError here is the plain "no GPU" exit
    } else {
      const GpuList list = parse_gpu_list(flags.gpus);
      Session probe(session_options(opts->common, measure));
      const std::vector<int> gpus = resolve_gpus(list, probe.visible_gpus());
      const char* parent_visible = std::getenv("CUDA_VISIBLE_DEVICES");
      tune.show_progress = false;  // several GPUs' bars would overwrite each other
      for (int gpu : gpus) {
        SessionOptions so = session_options(opts->common, measure);
        so.cuda_visible_devices =
            visible_devices_for(gpu, parent_visible ? std::optional<std::string>(parent_visible) : std::nullopt);
        auto lane = std::make_unique<Lane>(fmt::format("GPU {}", gpu), so, cache_root, tune);
        try {
          lane->session.device();
        } catch (const Error& e) {  // a GPU that cannot start is reported; the others take its share
          fmt::print(stderr, "warning: {} (CUDA_VISIBLE_DEVICES={}) did not start: {}; the other GPUs take its problems\n",
                     lane->label, so.cuda_visible_devices, e.what());
          continue;
        }
        lanes.push_back(std::move(lane));
      }
      if (lanes.empty()) throw NoGpuError("none of the GPUs --gpus " + flags.gpus + " names could start a worker");
      for (const auto& lane : lanes)
        if (lane->session.device().name != lanes.front()->session.device().name)
          throw ConfigError(fmt::format("--gpus: {} is a {} but {} is a {}; one results file holds one GPU model "
                                        "(run a bench per model, then `ktune merge`)",
                                        lane->label, lane->session.device().name, lanes.front()->label,
                                        lanes.front()->session.device().name));
    }
    const DeviceInfo device = lanes.front()->session.device();
    fmt::print("device: {} ({}, {} SMs, driver {}){}\nsuite: {} ({} problems{})\n", device.name, device.arch(),
               device.sm_count, device.driver_version,
               flags.gpus.empty() ? "" : fmt::format(" x {} GPUs", lanes.size()), suite.name, plan.size(),
               shard ? fmt::format(", shard {} of its {}", shard->str(), suite.problems.size()) : "");
    for (const Planned& p : plan)
      if (p.family->device_bytes(p.problem) > device.global_mem_bytes)
        throw ConfigError(fmt::format("{} needs {:.1f} GiB of device memory; {} has {:.1f} GiB", describe(p.problem),
                                      p.family->device_bytes(p.problem) / 1073741824.0, device.name,
                                      device.global_mem_bytes / 1073741824.0));

    BestConfigCache& cache = lanes.front()->cache;
    std::vector<std::optional<CacheEntry>> cached;
    std::vector<const Planned*> missing;
    for (const Planned& p : plan) {
      const bool given = recorded.contains(describe(p.problem));
      cached.push_back(measure.retune || given ? std::nullopt : lookup(cache, p, device, tune));
      if (!cached.back() && !given) missing.push_back(&p);
    }
    if (flags.no_tune && !missing.empty()) {
      fmt::print("--no-tune: {} of {} problems have no cached best configuration for this GPU in {}:\n",
                 missing.size(), plan.size(), cache.path().string());
      for (const Planned* m : missing) fmt::print("  {} (configs {})\n", describe(m->problem), config_names(*m));
      fmt::print("`ktune bench {}` without --no-tune tunes and caches them\n", flags.suite);
      exit_code = 1;
      return;
    }

    const ToleranceOverride tolerance{measure.rtol, measure.atol, measure.norm_tol};
    const RunInfo info = make_run_info(device);
    // A shard's default stem says which one it is: the shards of one array write side by side.
    const std::string shard_tag = shard ? fmt::format("-shard{}of{}", shard->index, shard->count) : "";
    const std::string stem = flags.stem.empty() ? results_stem("bench-" + suite.name + shard_tag) : flags.stem;
    const std::filesystem::path out_dir = measure.out;

    // Tunes (where needed) and measures problem i on one lane's GPU.
    std::mutex print_mutex;
    auto bench_problem = [&](Lane& lane, size_t i) {
      const Planned& p = plan[i];
      ProblemResult result;
      result.problem = p.problem;
      result.cost = p.family->cost(p.problem);

      Winner winner;
      std::string origin;
      if (auto given = recorded.find(describe(p.problem)); given != recorded.end()) {
        winner = given->second;
        origin = "configuration from --configs-from";
      } else {
        winner = find_winner(lane.tuner, p, cached[i], measure.top, print_mutex);
        origin = cached[i] ? fmt::format("best (tuned {})", cached[i]->created_at) : "best (tuned now)";
      }
      CandidateRecord best = compile_best(lane.compiler, p, winner, device);
      std::optional<ProblemResult> tuning = std::move(winner.tuning);
      // --nearest-from: the configuration the nearest other shape's row answers with, re-evaluated
      // for this shape (the nearest whose configuration can run it), timed in the same rounds.
      std::optional<CandidateRecord> nearest;
      std::optional<NearestRow> nearest_row;
      if (ready(best) && !nearest_table.empty())
        for (const NearestRow& n : nearest_rows(nearest_table, p.problem.family, p.problem.dtype, p.problem.options,
                                                p.problem.dims, device.name, nearest_table.size())) {
          if (n.distance == 0) continue;
          CandidateRecord c = compile_best(lane.compiler, p, Winner{n.row->params, n.row->config, std::nullopt}, device);
          if (!ready(c)) continue;
          nearest = std::move(c);
          nearest_row = n;
          break;
        }
      if (ready(best) && !nearest_table.empty() && !nearest) {
        std::lock_guard lock(print_mutex);
        fmt::print("\n{}: no other tuned shape's configuration can run it (the runtime would refuse it)\n",
                   describe(p.problem));
      }
      if (ready(best)) {
        lane.session.set_problem(p.problem, tolerance_for(*p.family, p.problem, tolerance), flags.seed);
        InterleavedOptions io{flags.rounds, flags.samples, measure.warmup_ms, flags.plant_delay_percent / 100};
        std::vector<CandidateRecord> kernels = {best};
        if (nearest) kernels.push_back(*nearest);
        Interleaved measured = measure_interleaved(lane.session, kernels, io);
        if (nearest) {
          const CandidateRecord& own = measured.kernels.front();
          const CandidateRecord& near = measured.kernels.back();
          std::lock_guard lock(print_mutex);
          if (own.time && near.time && own.disposition == Disposition::passed && near.disposition == Disposition::passed) {
            regrets.push_back({p.problem, device.name, nearest_row->row->dims, nearest_row->distance, own.config_name,
                               near.config_name, own.params, near.params, own.time->median, near.time->median});
            fmt::print("\n{}: the nearest tuned shape {} (distance {:.3f}) answers {:+.1f}% slower than its own winner\n",
                       describe(p.problem), nlohmann::json(nearest_row->row->dims).dump(), nearest_row->distance,
                       100 * regrets.back().regret());
            // Rewritten after every problem, as the results are: a run cut short keeps what it measured.
            write_file_atomic(out_dir / (stem + ".regret.json"), regret_json(regrets).dump(2) + "\n");
          } else {
            fmt::print("\n{}: the nearest tuned shape's configuration did not pass here ({}: {})\n", describe(p.problem),
                       to_string(near.disposition), near.reason);
          }
        }
        best = std::move(measured.kernels.front());
        CandidateRecord reference = std::move(measured.baselines.front());
        reference.config_name = best.config_name;
        const double reference_ms = reference.time ? reference.time->median : 0;
        derive_metrics(reference, result.cost, reference_ms);
        derive_metrics(best, result.cost, reference_ms);
        result.records.push_back(std::move(reference));
        // The problem's other baselines (the copy roof beside cuDNN), timed once each after it.
        for (size_t b = 1; b < lane.session.baseline_count(); ++b) {
          CandidateRecord extra = lane.session.time_baseline(tune.rule, measure.warmup_ms, b);
          extra.config_name = best.config_name;
          derive_metrics(extra, result.cost, reference_ms);
          result.records.push_back(std::move(extra));
        }
      }
      std::lock_guard lock(print_mutex);
      fmt::print("\n[{}/{}] {}{}\n", i + 1, plan.size(), describe(p.problem),
                 lane.label.empty() ? "" : " on " + lane.label);
      if (winner.params) fmt::print("  {}: {} {}\n", origin, winner.config, short_params(*winner.params));
      result.records.push_back(std::move(best));
      print_row(result);
      return std::pair{std::move(result), std::move(tuning)};
    };

    // The problems are a shared queue: each lane takes the next one when it is free, so a GPU
    // slowed by long problems takes fewer. A lane whose worker cannot be restarted hands its
    // problem back and stops; the others finish the suite.
    std::deque<size_t> queue;
    for (size_t i = 0; i < plan.size(); ++i) queue.push_back(i);
    std::vector<std::optional<ProblemResult>> done(plan.size());
    // The tunings this run did, every record with its reason: <stem>.tuning.json beside the bench's.
    std::vector<std::optional<ProblemResult>> tunings(plan.size());
    const std::string tuning_stem = stem + ".tuning";
    size_t live = lanes.size();
    std::exception_ptr failure;
    // With print_mutex held; rewritten after every problem, so a failure loses nothing. The tunings'
    // file (megabytes of raw samples) only when this problem added a tuning to it.
    auto write_done = [&](bool tuned_now) {
      std::vector<ProblemResult> results;
      for (const auto& r : done)
        if (r) results.push_back(*r);
      write_results(out_dir, stem, info, results, problem_columns(results));
      write_file_atomic(out_dir / (stem + ".md"), bench_markdown(suite, info, results));
      if (flags.format == "gbench")
        write_file_atomic(out_dir / (stem + ".gbench.json"),
                          gbench_json(info, results, gbench_host_now(), problem_columns(results)).dump(2) + "\n");
      if (!tuned_now) return;
      std::vector<ProblemResult> tuned;
      for (const auto& t : tunings)
        if (t) tuned.push_back(*t);
      write_results(out_dir, tuning_stem, info, tuned, problem_columns(tuned));
    };
    auto run_lane = [&](Lane& lane) {
      while (true) {
        size_t i;
        {
          std::lock_guard lock(print_mutex);
          if (queue.empty() || failure) return;
          i = queue.front();
          queue.pop_front();
        }
        try {
          auto [result, tuning] = bench_problem(lane, i);
          std::lock_guard lock(print_mutex);
          done[i] = std::move(result);
          const bool tuned_now = tuning.has_value();
          tunings[i] = std::move(tuning);
          write_done(tuned_now);
        } catch (const ConfigError&) {  // bad input fails the same on every GPU
          std::lock_guard lock(print_mutex);
          if (!failure) failure = std::current_exception();
          return;
        } catch (const Error& e) {
          std::lock_guard lock(print_mutex);
          if (lanes.size() == 1 || --live == 0) {
            if (!failure) failure = std::current_exception();
            return;
          }
          fmt::print(stderr, "warning: {} failed on {}: {}; it goes to another GPU, and {} takes no more problems\n",
                     describe(plan[i].problem), lane.label, e.what(), lane.label);
          queue.push_back(i);
          return;
        }
      }
    };
    if (lanes.size() == 1) {
      run_lane(*lanes.front());
    } else {
      std::vector<std::jthread> threads;
      for (auto& lane : lanes) threads.emplace_back([&run_lane, &lane] { run_lane(*lane); });
    }
    if (failure) std::rethrow_exception(failure);
    std::vector<ProblemResult> results;
    for (auto& r : done)
      if (r) results.push_back(std::move(*r));
    int failures = static_cast<int>(plan.size() - results.size());
    for (const ProblemResult& r : results)
      if (r.records.empty() || r.records.back().disposition != Disposition::passed) ++failures;
    fmt::print("\nresults: {}\n", (out_dir / (stem + ".json")).string());
    fmt::print("         {}\n         {}\n", (out_dir / (stem + ".csv")).string(), (out_dir / (stem + ".md")).string());
    if (flags.format == "gbench") fmt::print("         {}\n", (out_dir / (stem + ".gbench.json")).string());
    if (std::any_of(tunings.begin(), tunings.end(), [](const auto& t) { return t.has_value(); }))
      fmt::print("         {} (every record of the tunings this run did)\n",
                 (out_dir / (tuning_stem + ".json")).string());
    for (const std::string& w : cache.take_warnings()) fmt::print(stderr, "warning: {}\n", w);
    if (failures) fmt::print("{} of {} problems have no passing measurement\n", failures, plan.size());
    if (!flags.nearest_from.empty()) {
      write_file_atomic(out_dir / (stem + ".regret.json"), regret_json(regrets).dump(2) + "\n");
      merge_regret_file(std::filesystem::path(flags.nearest_from) / "regret.json", regrets);
      fmt::print("         {} (answers from the nearest tuned shape, timed beside each winner)\n",
                 (out_dir / (stem + ".regret.json")).string());
      std::set<std::string> families;
      for (const RegretEntry& e : regrets) families.insert(e.problem.family);
      for (const std::string& family : families)
        for (const RegretBucket& b : regret_buckets(regrets, family))
          if (b.count)
            fmt::print("{} at distance [{}, {}): {} shapes, regret median {:.1f}%, p90 {:.1f}%, worst {:.1f}%{}\n", family,
                       b.low, b.high, b.count, 100 * b.median, 100 * b.p90, 100 * b.worst,
                       b.retune() ? ": re-tune such shapes" : "");
    }
    exit_code = failures ? 1 : 0;
  });
}

}  // namespace ktune::cli
