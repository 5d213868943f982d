#include "tune/worker.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "gpu/timing_loop.hpp"
#include "measure/stats.hpp"
#include "cuda/check.hpp"
#include "cuda/launch_check.hpp"
#include "families/family.hpp"
#include "store/record_json.hpp"
#include "tune/ceilings_probe.hpp"
#include "gpu/gpu_context.hpp"
#include "tune/protocol.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

using nlohmann::json;

class Worker {
 public:
  explicit Worker(std::filesystem::path cache_dir) : cache_dir_(std::move(cache_dir)) {}

  json handle(const json& request) {
    const std::string op = request.at("op");
    if (op == "hello") return hello(request);
    if (op == "problem") return problem(request);
    if (op == "baseline") return baseline(request);
    if (op == "run") return run(request);
    if (op == "ceilings")
      return {{"ok", true},
              {"ceilings", probe_ceilings(*gpu_, request.at("rule").get<StoppingRule>(), request.at("warmup_ms"))}};
    return {{"ok", false}, {"error", "unknown op " + op}};
  }

 private:
  json hello(const json& request) {
    gpu_ = std::make_unique<GpuContext>(cache_dir_);
    TimingMethod timing;
    timing.timer = request.value("timer", timing.timer);
    timing.l2_flush = request.value("l2_flush", timing.l2_flush);
    timing.hold = request.value("hold", timing.hold);
    timing.cooldown_ms = request.value("cooldown_ms", timing.cooldown_ms);
    gpu_->set_timing(timing);
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess) visible = 1;  // the context above works: at least one
    return {{"ok", true},
            {"device", gpu_->device()},
            {"telemetry_note", gpu_->telemetry_note()},
            {"visible_gpus", visible}};
  }

  json problem(const json& request) {
    workload_.reset();
    problem_ = request.at("problem").get<Problem>();
    tolerance_ = request.at("tolerance").get<Tolerance>();
    // A family declared in a file is read again here: the parent names the file.
    if (request.contains("declaration")) declare_family(request.at("declaration").get<std::string>());
    const KernelFamily& family = find_family(problem_.family);
    int64_t bytes = family.device_bytes(problem_);
    size_t free_bytes = 0, total = 0;
    KTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total));
    if (bytes > static_cast<int64_t>(free_bytes))
      return {{"ok", false},
              {"error", fmt::format("{} needs {:.2f} GiB of device memory; {:.2f} GiB of {:.2f} GiB are free",
                                    describe(problem_), bytes / 1073741824.0, free_bytes / 1073741824.0,
                                    total / 1073741824.0)}};
    workload_ = family.prepare(problem_, *gpu_, request.at("seed").get<uint64_t>());
    tolerance_ = workload_->tolerance(tolerance_);
    return {{"ok", true}, {"baselines", workload_->baselines().size()}, {"tolerance", tolerance_}};
  }

  json baseline(const json& request) {
    const size_t which = request.value("which", size_t{0});
    if (which >= workload_->baselines().size())
      return {{"ok", false}, {"error", fmt::format("there is no baseline {} for {}", which, describe(problem_))}};
    CandidateRecord rec = checked_baseline(which);
    if (!workload_->baselines().at(which).unavailable.empty()) return {{"ok", true}, {"record", rec}};
    rec.telemetry_before = gpu_->telemetry();
    Measurement m = measure(*gpu_, [&] { workload_->run_baseline(which); }, request.at("rule").get<StoppingRule>(),
                            request.at("warmup_ms"), 0);
    rec.telemetry_after = gpu_->telemetry();
    rec.samples_ms = m.samples_ms;
    rec.time = summarize(m.samples_ms);
    return {{"ok", true}, {"record", rec}};
  }

  json run(const json& request) {
    CandidateRecord rec;
    rec.launch = request.at("launch").get<Launch>();
    const cuda::DriverApi& api = cuda::driver();
    std::unique_ptr<cuda::Module> module;
    CUfunction f = nullptr;
    try {
      module = std::make_unique<cuda::Module>(read_file(request.at("cubin_path").get<std::string>()));
      f = module->function(request.at("lowered_name"));
    } catch (const cuda::CudaError& e) {
      return outcome(rec, Disposition::launch_failed, std::string("cannot load the cubin: ") + e.what());
    }
    if (std::string why = cuda::prepare_launch(api, f, rec.launch, gpu_->device()); !why.empty())
      return outcome(rec, Disposition::launch_failed, why);

    std::vector<void*> args;
    try {
      args = workload_->kernel_args(rec.launch.tensor_maps);
    } catch (const cuda::CudaError& e) {
      return outcome(rec, Disposition::launch_failed, std::string("cannot encode a tensor map: ") + e.what());
    }
    std::function<void()> launch = [&] {
      workload_->before_launch();
      gpu_->launch(f, rec.launch, args.data());
    };

    // The first launch: a refused launch is the candidate's fault, a sticky error the worker's end.
    try {
      if (auto rejected = checked_launch(rec, launch, "")) return *rejected;
    } catch (const cuda::CudaError& e) {
      if (!e.sticky()) return outcome(rec, Disposition::launch_failed, e.what());
      throw;
    }
    if (request.at("verify_only")) return outcome(rec, Disposition::passed, "");

    const double planted = request.value("plant_delay", 0.0);
    if (planted > 0) launch = with_planted_delay(launch, planted, request.at("lowered_name"), rec);
    std::optional<CandidateRecord> baseline;
    rec.telemetry_before = gpu_->telemetry();
    if (request.value("paired_baseline", false) && !workload_->baselines().at(0).unavailable.empty()) {
      // No library call to pair with: the kernel alone, as many samples as a paired run takes.
      baseline = checked_baseline(0);
      StoppingRule rule = request.at("rule").get<StoppingRule>();
      rule.min_samples = rule.max_samples;
      rec.samples_ms = measure(*gpu_, launch, rule, request.at("warmup_ms"), 0).samples_ms;
    } else if (request.value("paired_baseline", false)) {
      // Kernel and baseline alternate sample by sample (gpu/timing_loop.hpp, measure_paired).
      baseline = checked_baseline(0);
      const StoppingRule rule = request.at("rule").get<StoppingRule>();
      PairedMeasurement pm =
          measure_paired(*gpu_, [&] { workload_->run_baseline(0); }, launch, rule.max_samples, request.at("warmup_ms"));
      baseline->samples_ms = pm.a_ms;
      baseline->time = summarize(pm.a_ms);
      rec.samples_ms = pm.b_ms;
    } else {
      Measurement m = measure(*gpu_, launch, request.at("rule").get<StoppingRule>(), request.at("warmup_ms"),
                              request.at("best_ms"));
      rec.samples_ms = m.samples_ms;
      rec.pruned = m.stop == StopReason::pruned;
    }
    rec.time = summarize(rec.samples_ms);
    rec.telemetry_after = gpu_->telemetry();
    if (baseline) {
      baseline->telemetry_before = rec.telemetry_before;
      baseline->telemetry_after = rec.telemetry_after;
    }
    // Launched again on freshly poisoned outputs, twice: values left by an earlier launch cannot
    // pass for this one's, so a kernel that is right once and then idles or half-writes (a
    // persistent or split-K kernel whose counters do not reset) fails here, as do races that need
    // repetition.
    for (int again = 1; again <= kRelaunches; ++again)
      if (auto rejected = checked_launch(rec, launch, fmt::format("relaunch {} after timing", again)))
        return *rejected;
    json reply = outcome(rec, Disposition::passed, rec.reason);
    if (baseline) reply["baseline"] = *baseline;
    return reply;
  }

  // A baseline's output checked on poisoned outputs; the record to which its samples go. One that
  // computes nothing of the problem (the copy roof) is run once, unchecked.
  CandidateRecord checked_baseline(size_t which) {
    const BaselineInfo info = workload_->baselines().at(which);
    CandidateRecord rec;
    rec.role = Role::baseline;
    rec.source = info.provider;
    rec.kernel_name = info.name;
    if (!info.unavailable.empty()) {  // nothing to run: the record says why there is no ratio
      rec.disposition = Disposition::not_run;
      rec.reason = "no library baseline: " + info.unavailable;
      return rec;
    }
    workload_->buffers().poison_outputs();
    workload_->run_baseline(which);
    KTUNE_CUDA(cudaStreamSynchronize(gpu_->stream()));
    if (!info.checks_output) {
      rec.disposition = Disposition::passed;
      return rec;
    }
    rec.error = workload_->check_output(tolerance_);
    std::string why;
    rec.disposition = workload_->accepts(*rec.error, tolerance_, &why) ? Disposition::passed : Disposition::incorrect;
    rec.reason = why;
    return rec;
  }

  // Poisons the outputs, runs `launch` once, checks the output and everything the run must not
  // have touched (guards, inputs, the reference, counters). Returns the rejection, or nothing
  // when the run was clean. `when` says which run it was, for the reason.
  std::optional<json> checked_launch(CandidateRecord& rec, const std::function<void()>& launch,
                                     const std::string& when) {
    GuardedBuffers& buffers = workload_->buffers();
    buffers.poison_outputs();
    launch();
    KTUNE_CUDA(cudaStreamSynchronize(gpu_->stream()));
    std::vector<std::string> touched = buffers.touched();
    ErrorStats error = workload_->check_output(tolerance_);
    std::string why;
    const bool right = workload_->accepts(error, tolerance_, &why);
    rec.error = error;
    const std::string prefix = when.empty() ? "" : when + ": ";
    if (!touched.empty()) {
      std::string reason = prefix + join(touched);
      if (!right) reason += "; and the output: " + why;
      return corrupted(rec, reason);
    }
    if (!right)
      return outcome(rec, Disposition::incorrect,
                     when.empty() ? why : prefix + "right on its first launch, wrong now: " + why);
    return std::nullopt;
  }

  // A candidate that wrote where it must not: rejected, and this worker ends after the reply so that
  // the next candidate gets fresh inputs and a fresh reference (the write may have reached memory
  // no guard covers).
  static json corrupted(CandidateRecord& rec, const std::string& reason) {
    json reply = outcome(rec, Disposition::incorrect, reason);
    reply["restart"] = true;
    return reply;
  }

  static std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines) out += (out.empty() ? "" : "; ") + l;
    return out;
  }

  // `launch` followed by a spin of one thread that makes each timed sample `fraction` longer
  // (calibrated against this kernel's own time): a real slowdown on the GPU, for checking that the
  // regression gate catches one (`ktune bench --plant-delay`). The achieved slowdown goes in the
  // record's reason.
  std::function<void()> with_planted_delay(const std::function<void()>& launch, double fraction,
                                           const std::string& kernel, CandidateRecord& rec) {
    // The delay is calibrated against the plain kernel in paired samples (measure_paired): under
    // a power cap the clocks move by more than 5% from one measurement to the next, so a plain
    // and a delayed measurement taken one after the other do not tell the delay apart from the
    // drift. Calibrated once per kernel and worker, so every turn of a bench plants the same one.
    const std::string key = fmt::format("{}@{}", kernel, fraction);
    auto cycles = std::make_shared<long long>(planted_cycles_[key]);
    std::function<void()> delayed = [launch, cycles, this] {
      launch();
      gpu_->spin(*cycles);
    };
    auto slowdown = [&] {
      PairedMeasurement pm = measure_paired(*gpu_, launch, delayed, 60, 20);
      return summarize(pm.b_ms).median / summarize(pm.a_ms).median - 1;
    };
    if (*cycles == 0) {
      const double plain = summarize(measure_paired(*gpu_, launch, launch, 20, 20).a_ms).median;
      *cycles = std::max<long long>(1, std::llround(fraction * plain * 1e-3 * gpu_->device().sm_clock_khz * 1e3));
      for (int step = 0; step < 4; ++step) {  // the spin's launch gap is part of the delay: correct for it
        const double achieved = slowdown();
        if (achieved > 0) *cycles = std::max<long long>(1, std::llround(*cycles * fraction / achieved));
      }
      planted_cycles_[key] = *cycles;
    }
    rec.reason = fmt::format("planted delay: {:+.1f}% (asked {:+.1f}%)", 100 * slowdown(), 100 * fraction);
    return delayed;
  }

  static json outcome(CandidateRecord& rec, Disposition d, const std::string& reason) {
    rec.disposition = d;
    rec.reason = reason;
    return {{"ok", true}, {"record", rec}};
  }

  std::filesystem::path cache_dir_;
  std::unique_ptr<GpuContext> gpu_;
  std::unique_ptr<Workload> workload_;
  Problem problem_;
  Tolerance tolerance_;
  static constexpr int kRelaunches = 2;
  std::map<std::string, long long> planted_cycles_;  // --plant-delay's calibration, per kernel
};

}  // namespace

int run_worker(const std::filesystem::path& compile_cache_dir) {
  // Replies go to the real stdout; anything else that prints (a library, a printf in a kernel
  // flushed by the runtime) goes to stderr, so it cannot break the protocol.
  int protocol_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* replies = fdopen(protocol_fd, "w");
  if (!replies) return 2;

  Worker worker(compile_cache_dir);
  std::string line;
  while (std::getline(std::cin, line)) {
    json reply;
    bool fatal = false;
    try {
      reply = worker.handle(json::parse(line));
    } catch (const cuda::CudaError& e) {
      fatal = e.sticky();
      reply = {{"ok", true},
               {"fatal", fatal},
               {"record", {{"disposition", fatal ? "crashed" : "launch_failed"}, {"reason", e.what()}}},
               {"error", e.what()}};
      if (!fatal) reply["ok"] = false;
    } catch (const NoGpuError& e) {
      reply = {{"ok", false}, {"no_gpu", true}, {"error", e.what()}};
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}};
    }
    std::string text = reply.dump() + "\n";
    fwrite(text.data(), 1, text.size(), replies);
    fflush(replies);
    if (fatal) _exit(3);  // the context is gone; a new worker takes over
    // A candidate wrote outside its outputs: end, so the next worker starts from clean memory.
    if (reply.value("restart", false)) _exit(0);
  }
  return 0;
}

}  // namespace ktune
