// One command's use of the GPU, seen from the parent: a worker process that is started on first
// need, restarted after a candidate kills it, and re-given the current problem when it comes back.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>

#include "gpu/timing_loop.hpp"
#include "measure/stopping_rule.hpp"
#include "families/tolerance.hpp"
#include "store/ceilings.hpp"
#include "core/record.hpp"
#include "tune/worker_client.hpp"

namespace ktune {

struct SessionOptions {
  std::filesystem::path compile_cache_dir;
  std::filesystem::path worker_executable = "/proc/self/exe";  // a ktune binary (tests point it at one)
  std::chrono::milliseconds candidate_timeout{20000};  // a candidate not done by then is hung
  std::chrono::milliseconds setup_timeout{300000};     // device start, inputs and reference
  TimingMethod timing;                                 // how the worker times samples
  std::string cuda_visible_devices;                    // set: the worker's CUDA_VISIBLE_DEVICES (its GPU)
};

class Session {
 public:
  explicit Session(SessionOptions options);

  // Starts the worker if needed; throws NoGpuError when there is no usable GPU.
  const DeviceInfo& device();

  // Allocates inputs and computes the reference in the worker; ConfigError if it cannot
  // (e.g. the problem does not fit in device memory).
  void set_problem(const Problem&, const Tolerance&, uint64_t seed);

  // Times each of the problem's baselines in turn (Workload::baselines()); the first is the one
  // candidates are compared with.
  std::vector<CandidateRecord> time_baselines(const StoppingRule&, double warmup_ms);
  CandidateRecord time_baseline(const StoppingRule&, double warmup_ms, size_t which);
  size_t baseline_count();  // of the current problem

  // Runs one compiled candidate: fills disposition, reason, error, time, samples, pruned.
  // plant_delay > 0 makes every timed sample that fraction slower on the GPU (gate self-tests).
  // With `paired_baseline`, exactly rule.max_samples samples of the candidate and of the baseline
  // are taken alternately (measure_paired), and the baseline's go there, with its output check.
  void run_candidate(CandidateRecord& rec, const StoppingRule&, double warmup_ms, double best_ms,
                     bool verify_only, double plant_delay = 0, CandidateRecord* paired_baseline = nullptr);

  // Measures this device's copy bandwidth and cuBLAS peaks (tune/ceilings_probe.hpp).
  Ceilings measure_ceilings(const StoppingRule&, double warmup_ms);

  int worker_restarts() const { return restarts_; }
  // GPUs the worker can see (CUDA_VISIBLE_DEVICES applied); it measures on the first.
  int visible_gpus();

 private:
  WorkerClient::Reply call(const nlohmann::json& request, std::chrono::milliseconds timeout);
  void ensure_ready();

  SessionOptions options_;
  WorkerClient client_;
  std::optional<DeviceInfo> device_;
  std::optional<nlohmann::json> problem_request_;
  bool problem_loaded_ = false;
  size_t baseline_count_ = 1;  // from the worker's answer to the problem
  int visible_gpus_ = 1;       // from the worker's answer to hello
  int restarts_ = 0;
};

}  // namespace ktune
