#include "tune/tuner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "compile/compile_pipeline.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "store/dispatch_table.hpp"
#include "store/rejections.hpp"
#include "tune/compile_candidates.hpp"
#include "tune/interleaved.hpp"
#include "util/progress.hpp"
#include "util/utc_time.hpp"

namespace ktune {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A timed record reduced to what it was before it ran: compiled, ready for another run.
CandidateRecord untimed(CandidateRecord rec) {
  rec.disposition = Disposition::not_run;
  rec.reason.clear();
  rec.time.reset();
  rec.samples_ms.clear();
  rec.rounds.clear();
  rec.error.reset();
  rec.pruned = false;
  return rec;
}

}  // namespace

std::vector<size_t> pick_finalists(const std::vector<CandidateRecord>& records, int count, double margin) {
  std::vector<size_t> passed;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].disposition == Disposition::passed && records[i].time && !records[i].pruned) passed.push_back(i);
  std::stable_sort(passed.begin(), passed.end(),
                   [&](size_t a, size_t b) { return records[a].time->median < records[b].time->median; });
  // The best one-pass median is itself flattered by noise, so a margin measured from it can shut
  // out a candidate that is really as fast (on the H100 at 4096^3 the final once had one finalist):
  // the runner-up always gets a place.
  std::vector<size_t> out;
  for (size_t i : passed) {
    if (static_cast<int>(out.size()) >= count) break;
    if (out.size() >= 2 && records[i].time->median > records[passed.front()].time->median * (1 + margin)) break;
    out.push_back(i);
  }
  return out;
}


Tolerance tolerance_for(const KernelFamily& family, const Problem& problem, const ToleranceOverride& override) {
  Tolerance t = family.default_tolerance(problem.dtype);
  if (override.rtol) t.rtol = *override.rtol;
  if (override.atol) t.atol = *override.atol;
  if (override.norm_rel) t.max_norm_rel = *override.norm_rel;
  return t;
}

std::vector<const Sweep*> active_sweeps(const std::vector<Sweep>& sweeps, const DeviceInfo& device) {
  // Configs the device is too old or too new for take no part (their candidates would all be invalid).
  std::vector<const Sweep*> active;
  for (const Sweep& s : sweeps)
    if (arch_mismatch(s.config, arch_facts(device).arch).empty()) active.push_back(&s);
  if (active.empty()) throw ConfigError(fmt::format("no sweep config runs on {} ({})", device.name, device.arch()));
  return active;
}

CacheKey sweeps_cache_key(const std::vector<const Sweep*>& active, const Problem& problem, const DeviceInfo& device,
                          const TuneOptions& options) {
  // Everything that can change which candidate wins or whether it passes: each config's text,
  // its kernel and every header the kernel may include (the compile cache hashes them too), the
  // tolerances it was judged by and the compile flags. Lengths delimit the parts, so no two
  // different sweeps concatenate to the same text.
  std::string names, text;
  auto part = [&text](std::string_view label, std::string_view content) {
    text += fmt::format("{}:{}:", label, content.size());
    text += content;
  };
  for (const Sweep* s : active) {
    names += (names.empty() ? "" : "+") + s->config.name;
    part("config", s->config.text);
    part("kernel", s->source.text);
    std::vector<std::pair<std::string, std::string>> headers = s->source.headers;
    std::sort(headers.begin(), headers.end());
    for (const auto& [name, content] : headers) {
      part("header", name);
      part("text", content);
    }
  }
  // A declared family is defined by its file and the kernels it names: an edit to any is a new key.
  const KernelFamily& family = find_family(problem.family);
  if (const std::string definition = family.definition_text(); !definition.empty()) part("family", definition);
  const Tolerance t = tolerance_for(family, problem, options.tolerance);
  const std::string settings =
      fmt::format("atol={:g};rtol={:g};norm_tol={:g};allow_spills={:d}", t.atol, t.rtol, t.max_norm_rel,
                  options.allow_spills);
  return make_cache_key(problem, device, names, text, NvrtcCompiler::nvrtc_version(), settings);
}

std::vector<SearchSeed> Tuner::nearest_winners(const Problem& problem, const DeviceInfo& device) const {
  // The winners of the nearest shapes tuned on this GPU, a few: neighbours in shape often share a
  // winner, and where the estimate misjudges a shape its neighbours' measured winners still run.
  const std::vector<DispatchRow> table = dispatch_table(cache_.list());
  std::vector<SearchSeed> seeds;
  for (const NearestRow& n :
       nearest_rows(table, problem.family, problem.dtype, problem.options, problem.dims, device.name, kSeedShapes))
    seeds.push_back({n.row->config, n.row->params});
  return seeds;
}

namespace {

// Why no candidate of any sweep is valid for the problem: the constraints that ruled them out, most
// candidates first. Bad input, said before anything compiles (fp8 with K not a multiple of 16).
std::string no_candidate_can_run(const Problem& problem, const std::vector<const Sweep*>& sweeps,
                                 std::vector<CandidateRecord> candidates, std::vector<RuledOut> ruled_out) {
  std::string configs;
  for (const Sweep* s : sweeps) configs += (configs.empty() ? "" : ", ") + s->config.name;
  ProblemResult all;
  all.records = std::move(candidates);
  all.ruled_out = std::move(ruled_out);
  std::string why;
  for (const Rejection& r : top_rejections(all, 4)) why += fmt::format("\n  {} candidates: {}", r.count, r.example);
  return fmt::format("{}: no configuration of {} can run this problem; what rules them out:{}", describe(problem),
                     configs, why);
}

}  // namespace

Tuner::Tuner(Session& session, Compiler& compiler, BestConfigCache& cache, TuneOptions options)
    : session_(session), compiler_(compiler), cache_(cache), options_(std::move(options)) {}

TuneResult Tuner::tune(const std::vector<Sweep>& all_sweeps, const Problem& problem) {
  if (all_sweeps.empty()) throw Error("nothing to tune: no sweep config");
  const KernelFamily& family = find_family(all_sweeps.front().config.family);
  check_problem(problem);
  const DeviceInfo& device = session_.device();

  // Before compiling anything: a problem the device cannot hold is bad input.
  if (family.device_bytes(problem) > device.global_mem_bytes)
    throw ConfigError(fmt::format("{} needs {:.1f} GiB of device memory; {} has {:.1f} GiB", describe(problem),
                                  family.device_bytes(problem) / 1073741824.0, device.name,
                                  device.global_mem_bytes / 1073741824.0));

  TuneResult out;
  out.result.problem = problem;
  out.result.cost = family.cost(problem);

  const std::vector<const Sweep*> sweeps = active_sweeps(all_sweeps, device);
  const CacheKey key = sweeps_cache_key(sweeps, problem, device, options_);
  if (!options_.retune) {
    // An exhaustive search is not answered by the winner of a predicted one.
    if (auto hit = cache_.find(key); hit && (!options_.search.exhaustive || hit->exhaustive())) {
      out.cached = hit;
      return out;
    }
  }

  // The kernels a family compiles itself (a declared family's reference) must compile before the
  // worker is asked to run them: a mistake there is the declaration's, said with its position.
  family.check_own_kernels(problem, device.arch(), compiler_);

  // Enumerate every sweep's candidates and plan the search: which to compile and time, best
  // predicted first.
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<CandidateRecord> candidates;
  std::vector<const Sweep*> sweep_of;  // each candidate's sweep, for its kernel source
  for (const Sweep* s : sweeps) {
    SweepCandidates some = enumerate_candidates(s->config, family, problem, arch_facts(device));
    sweep_of.insert(sweep_of.end(), some.records.size(), s);
    candidates.insert(candidates.end(), std::make_move_iterator(some.records.begin()),
                      std::make_move_iterator(some.records.end()));
    out.result.ruled_out.insert(out.result.ruled_out.end(), some.ruled_out.begin(), some.ruled_out.end());
  }
  if (std::none_of(candidates.begin(), candidates.end(),
                   [](const CandidateRecord& c) { return c.disposition != Disposition::invalid; }))
    throw ConfigError(no_candidate_can_run(problem, sweeps, candidates, out.result.ruled_out));
  Exchanges exchanges;
  for (const Sweep* s : sweeps) exchanges[s->config.name] = s->config.exchanges;
  GuidedSearch search(candidates, options_.search.exhaustive ? std::vector<SearchSeed>{} : nearest_winners(problem, device),
                      options_.search, std::move(exchanges));

  const Tolerance tolerance = tolerance_for(family, problem, options_.tolerance);
  std::vector<CandidateRecord> baselines;
  // The worker's inputs, reference and baseline timing. The reference is timed first, so it gets
  // a long warmup: the GPU may be coming out of idle clocks, and an under-clocked reference would
  // flatter every candidate.
  auto prepare_problem = [&] {
    session_.set_problem(problem, tolerance, options_.seed);
    baselines = session_.time_baselines(options_.rule, std::max(options_.warmup_ms, 200.0));
  };
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int threads = options_.jobs > 0 ? options_.jobs : std::max(1, cores > 2 ? cores - 1 : cores);
  // A guided search's one pass takes a third of the measured time and a quarter of the warmup
  // per candidate (17 ms and 6 ms by default: ~90 samples of a 0.19 ms kernel, after the
  // previous candidate kept the GPU busy): it only ranks candidates and picks whose neighbours to
  // try, and whatever comes within the final's margin of the best is measured again with the
  // baseline before anything is chosen. Half of each cost 0.6 s of a 4.6 s warm search at 4096^3.
  StoppingRule sweep_rule = options_.rule;
  double sweep_warmup_ms = options_.warmup_ms;
  if (!options_.search.exhaustive) {
    sweep_rule.min_time_ms /= 3;
    sweep_warmup_ms /= 4;
  }
  Progress progress("searching", 0, options_.show_progress);
  double best_ms = 0;
  bool budget_spent = false;
  // Each batch compiles in the background, in its order, while this thread times what is
  // compiled (one core is left to it and the worker). The first batch's compiles also overlap
  // the worker's preparing the problem: its inputs, reference and baseline timing.
  for (std::vector<size_t> batch = search.next_batch(); !batch.empty() && !budget_spent; batch = search.next_batch()) {
    std::vector<CompileRequest> requests;
    for (size_t i : batch)
      requests.push_back(compile_request(sweep_of[i]->source, candidates[i], device.arch(),
                                         family.kernel_parameters(problem, sweep_of[i]->config)));
    CompilePipeline compiles(compiler_, std::move(requests), threads);
    if (baselines.empty()) prepare_problem();
    progress.add_total(batch.size());
    while (auto done = compiles.next()) {
      CandidateRecord& rec = candidates[batch[done->index]];
      judge_compile(rec, std::move(done->info), options_.allow_spills);
      if (rec.disposition == Disposition::not_run) {
        session_.run_candidate(rec, sweep_rule, sweep_warmup_ms, best_ms, /*verify_only=*/false);
        if (rec.disposition == Disposition::passed && rec.time && (best_ms <= 0 || rec.time->median < best_ms))
          best_ms = rec.time->median;
      }
      progress.step(best_ms > 0 ? fmt::format("best {:.4f} ms", best_ms) : std::string());
      if (options_.search.budget_s > 0 && seconds_since(t0) > options_.search.budget_s) {
        budget_spent = true;
        compiles.cancel();
      }
    }
    out.compile_seconds += compiles.busy_seconds();
    if (budget_spent)
      for (size_t i : batch)  // taken into the batch, never compiled
        if (candidates[i].disposition == Disposition::not_run && !candidates[i].compile.ok)
          candidates[i].reason = budget_reason(options_.search.budget_s);
  }
  progress.finish();
  out.search = search.finish(budget_spent ? budget_reason(options_.search.budget_s) : "");
  if (budget_spent) out.search += fmt::format("; ended by the --budget of {:g} s", options_.search.budget_s);
  if (baselines.empty()) prepare_problem();  // nothing to search: the baseline is still measured
  CandidateRecord reference = std::move(baselines.front());

  // The final. The sweep took one pass over hundreds of candidates, and the fastest of hundreds
  // of noisy medians is flattered by its own noise (a sweep once printed and cached 1.022x for a
  // winner that `bench` re-measured at 0.979x). So the few candidates within noise of the best
  // are measured again, in interleaved rounds with the baseline, and the winner, its time and its
  // ratio come from that re-measurement alone. Finalists' records hold the final's samples (their
  // `rounds` are set); records[0] is the final's baseline.
  const std::vector<size_t> finalists = pick_finalists(candidates, options_.finalists, options_.final_margin);
  // Records that only took the sweep's pass are compared with the baseline timed again, the same
  // way, right after that pass, with the GPU in the state the candidates left it in. The first
  // timing, alone before the search after a long warmup, was 6-11% slower than cuBLAS in the
  // final's pairs on a power-capped H200 at 4096^3 fp16 and two block-scaled fp8 shapes
  // (results/h200/sweep-baseline-69b0b09/), which flattered the one-pass ratios. The other
  // baselines (the copy roof beside a library op) keep the first, as they were timed beside it.
  // The second timing only improves a table: if the worker fails it, the first stands.
  const double first_reference_ms = reference.time ? reference.time->median : 0;
  double sweep_reference_ms = first_reference_ms;
  std::optional<CandidateRecord> retimed;
  const bool any_swept = std::any_of(candidates.begin(), candidates.end(), [](const CandidateRecord& c) {
    return c.disposition == Disposition::passed && c.time.has_value();
  });
  if (any_swept && reference.time) {
    try {
      CandidateRecord again = session_.time_baseline(sweep_rule, sweep_warmup_ms, 0);
      if (again.time) {
        sweep_reference_ms = again.time->median;
        out.result.sweep_baseline = SweepBaseline{first_reference_ms, sweep_reference_ms};
        retimed = std::move(again);
      }
    } catch (const Error&) {
      // The first timing stands, as said above; the final measures on its own.
    }
  }
  bool reference_from_final = false;
  if (!finalists.empty()) {
    std::vector<CandidateRecord> compiled;
    for (size_t i : finalists) compiled.push_back(untimed(candidates[i]));
    Interleaved final = measure_interleaved(
        session_, compiled,
        // The sweep has just kept the GPU busy: the first turn needs no long warmup.
        {options_.final_rounds, options_.final_samples, options_.warmup_ms, 0, /*first_warmup_ms=*/options_.warmup_ms});
    // Each finalist's ratio is against the baseline samples taken alternately with its own; the
    // baseline record shown is the winner's partner. A problem no library runs has no baseline
    // samples: the finalists are still compared with each other, without a ratio.
    std::optional<size_t> winner;
    for (size_t j = 0; j < finalists.size(); ++j) {
      CandidateRecord& k = final.kernels[j];
      const CandidateRecord& b = final.baselines[j];
      if (k.disposition != Disposition::passed || !k.time) continue;
      derive_metrics(k, out.result.cost, b.time ? b.time->median : 0);
      if (!winner || k.time->median < final.kernels[*winner].time->median) winner = j;
    }
    for (size_t j = 0; j < finalists.size(); ++j) candidates[finalists[j]] = std::move(final.kernels[j]);
    if (winner) {
      reference = std::move(final.baselines[*winner]);
      reference_from_final = true;
    }
  }
  // No final winner: the baseline row shown is the timing the one-pass ratios are against.
  if (!reference_from_final && retimed) reference = std::move(*retimed);
  out.run_seconds = seconds_since(t0);

  reference.config_name = key.config_name;
  const double reference_ms = reference.time ? reference.time->median : 0;
  derive_metrics(reference, out.result.cost, reference_ms);
  out.result.records.push_back(std::move(reference));
  // The other baselines (the copy roof beside a library op), compared with the first timing of
  // the first, as they were timed beside it.
  for (size_t i = 1; i < baselines.size(); ++i) {
    baselines[i].config_name = key.config_name;
    derive_metrics(baselines[i], out.result.cost, first_reference_ms);
    out.result.records.push_back(std::move(baselines[i]));
  }
  for (CandidateRecord& rec : candidates)
    if (rec.rounds.empty()) derive_metrics(rec, out.result.cost, sweep_reference_ms);
  for (CandidateRecord& rec : candidates) out.result.records.push_back(std::move(rec));
  for (size_t i = 1; i < out.result.records.size(); ++i) {
    const CandidateRecord& rec = out.result.records[i];
    if (rec.is_baseline()) continue;
    if (rec.disposition != Disposition::passed || !rec.time || rec.rounds.empty()) continue;
    if (!out.best || rec.time->median < out.result.records[*out.best].time->median) out.best = i;
  }

  if (out.best) {
    const CandidateRecord& win = out.result.records[*out.best];
    CacheEntry entry;
    entry.key = key;
    entry.params = win.params;
    entry.winner_config = win.config_name;
    entry.kernel_name = win.kernel_name;
    entry.launch = win.launch;
    entry.median_ms = win.time->median;
    entry.tflops = win.tflops;
    entry.gbps = win.gbps;
    entry.ratio_vs_baseline = win.ratio_vs_baseline;
    entry.created_at = utc_iso_now();
    entry.ktune_version = KTUNE_VERSION;
    const bool everything = options_.search.exhaustive && !options_.search.shard &&
                            search.searched() == search.valid() && !budget_spent;
    entry.search = everything ? "exhaustive" : out.search;
    try {
      cache_.put(entry);
    } catch (const Error& e) {
      // A cache we cannot write must not cost the user the sweep: results are still written.
      out.cache_warning = e.what();
    }
  }
  return out;
}

}  // namespace ktune
