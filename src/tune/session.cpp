#include "tune/session.hpp"

#include <fmt/format.h>

#include "families/family.hpp"
#include "store/record_json.hpp"
#include "store/telemetry_json.hpp"
#include "tune/protocol.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

std::vector<std::string> worker_argv(const SessionOptions& o) {
  return {o.worker_executable.string(), "__worker", "--cache-dir", o.compile_cache_dir.string()};
}

std::vector<std::string> worker_env(const SessionOptions& o) {
  if (o.cuda_visible_devices.empty()) return {};
  return {"CUDA_VISIBLE_DEVICES=" + o.cuda_visible_devices};
}

}  // namespace

Session::Session(SessionOptions options)
    : options_(std::move(options)), client_(worker_argv(options_), worker_env(options_)) {}

int Session::visible_gpus() {
  ensure_ready();
  return visible_gpus_;
}

WorkerClient::Reply Session::call(const nlohmann::json& request, std::chrono::milliseconds timeout) {
  WorkerClient::Reply reply = client_.call(request, timeout);
  // A sticky CUDA error ends the worker ("fatal"), and so does a candidate that wrote outside its
  // outputs ("restart"): either way the next call starts a fresh one with a fresh reference.
  if (reply.status != WorkerClient::Status::ok || reply.body.value("fatal", false) ||
      reply.body.value("restart", false)) {
    client_.stop();  // the next call starts a fresh worker
    problem_loaded_ = false;
    ++restarts_;
  }
  return reply;
}

void Session::ensure_ready() {
  if (!client_.running()) {
    auto reply = client_.call({{"op", "hello"},
                               {"timer", options_.timing.timer},
                               {"l2_flush", options_.timing.l2_flush},
                               {"hold", options_.timing.hold},
                               {"cooldown_ms", options_.timing.cooldown_ms}},
                              options_.setup_timeout);
    if (reply.status != WorkerClient::Status::ok)
      throw Error("the GPU worker failed to start: " + reply.detail);
    if (!reply.body.value("ok", false)) {
      std::string error = reply.body.value("error", "unknown error");
      client_.stop();
      if (reply.body.value("no_gpu", false)) throw NoGpuError(error);
      throw Error("the GPU worker failed to start: " + error);
    }
    device_ = reply.body.at("device").get<DeviceInfo>();
    visible_gpus_ = reply.body.value("visible_gpus", 1);
    problem_loaded_ = false;
  }
  if (problem_request_ && !problem_loaded_) {
    auto reply = client_.call(*problem_request_, options_.setup_timeout);
    if (reply.status != WorkerClient::Status::ok)
      throw Error("the GPU worker died while preparing the problem: " + reply.detail);
    if (!reply.body.value("ok", false)) throw ConfigError(reply.body.value("error", "cannot set up the problem"));
    baseline_count_ = reply.body.value("baselines", size_t{1});
    problem_loaded_ = true;
  }
}

const DeviceInfo& Session::device() {
  ensure_ready();
  return *device_;
}

void Session::set_problem(const Problem& problem, const Tolerance& tolerance, uint64_t seed) {
  problem_request_ = nlohmann::json{{"op", "problem"}, {"problem", problem}, {"tolerance", tolerance}, {"seed", seed}};
  // The worker reads a declared family's file itself (it is another process).
  if (const std::filesystem::path file = find_family(problem.family).declaration_file(); !file.empty())
    (*problem_request_)["declaration"] = file.string();
  problem_loaded_ = false;
  ensure_ready();
}

std::vector<CandidateRecord> Session::time_baselines(const StoppingRule& rule, double warmup_ms) {
  std::vector<CandidateRecord> out;
  for (size_t which = 0; which < baseline_count(); ++which) out.push_back(time_baseline(rule, warmup_ms, which));
  return out;
}

CandidateRecord Session::time_baseline(const StoppingRule& rule, double warmup_ms, size_t which) {
  ensure_ready();
  auto reply = call({{"op", "baseline"}, {"rule", rule}, {"warmup_ms", warmup_ms}, {"which", which}},
                    options_.setup_timeout);
  if (reply.status != WorkerClient::Status::ok) throw Error("the baseline run failed: " + reply.detail);
  if (!reply.body.value("ok", false) || !reply.body.contains("record"))
    throw Error("the baseline run failed: " + reply.body.value("error", "unknown error"));
  return reply.body.at("record").get<CandidateRecord>();
}

size_t Session::baseline_count() {
  ensure_ready();
  return baseline_count_;
}

Ceilings Session::measure_ceilings(const StoppingRule& rule, double warmup_ms) {
  ensure_ready();
  auto reply = call({{"op", "ceilings"}, {"rule", rule}, {"warmup_ms", warmup_ms}}, options_.setup_timeout);
  if (reply.status != WorkerClient::Status::ok) throw Error("measuring the ceilings failed: " + reply.detail);
  if (!reply.body.value("ok", false) || !reply.body.contains("ceilings"))
    throw Error("measuring the ceilings failed: " + reply.body.value("error", "unknown error"));
  return reply.body.at("ceilings").get<Ceilings>();
}

void Session::run_candidate(CandidateRecord& rec, const StoppingRule& rule, double warmup_ms, double best_ms,
                            bool verify_only, double plant_delay, CandidateRecord* paired_baseline) {
  ensure_ready();
  nlohmann::json request = {{"op", "run"},
                            {"cubin_path", rec.compile.cubin_path},
                            {"lowered_name", rec.compile.lowered_name},
                            {"launch", rec.launch},
                            {"rule", rule},
                            {"warmup_ms", warmup_ms},
                            {"best_ms", best_ms},
                            {"verify_only", verify_only}};
  if (plant_delay > 0) request["plant_delay"] = plant_delay;
  if (paired_baseline) request["paired_baseline"] = true;
  auto reply = call(request, options_.candidate_timeout);
  if (reply.status == WorkerClient::Status::timed_out) {
    rec.disposition = Disposition::timeout;
    rec.reason = "worker " + reply.detail;
    return;
  }
  if (reply.status == WorkerClient::Status::died) {
    rec.disposition = Disposition::crashed;
    rec.reason = "worker " + reply.detail;
    return;
  }
  if (!reply.body.contains("record")) {
    rec.disposition = Disposition::crashed;
    rec.reason = reply.body.value("error", "the worker gave no result");
    return;
  }
  const nlohmann::json& r = reply.body.at("record");
  rec.disposition = disposition_from_string(r.value("disposition", "crashed")).value_or(Disposition::crashed);
  rec.reason = r.value("reason", "");
  if (r.contains("error") && !r.at("error").is_null()) rec.error = r.at("error").get<ErrorStats>();
  if (r.contains("time") && !r.at("time").is_null()) rec.time = r.at("time").get<TimeStats>();
  if (r.contains("samples_ms")) rec.samples_ms = r.at("samples_ms").get<std::vector<double>>();
  rec.pruned = r.value("pruned", false);
  if (r.contains("telemetry_before")) rec.telemetry_before = r.at("telemetry_before").get<cuda::GpuTelemetry>();
  if (r.contains("telemetry_after")) rec.telemetry_after = r.at("telemetry_after").get<cuda::GpuTelemetry>();
  if (paired_baseline) {
    if (reply.body.contains("baseline")) {
      *paired_baseline = reply.body.at("baseline").get<CandidateRecord>();
    } else {  // the candidate failed before its timed samples: the baseline has none either
      paired_baseline->disposition = Disposition::not_run;
      paired_baseline->samples_ms.clear();
    }
  }
}

}  // namespace ktune
