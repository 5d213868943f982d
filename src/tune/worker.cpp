#include "tune/worker.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "bench/measure.hpp"
#include "bench/stats.hpp"
#include "cuda/check.hpp"
#include "families/family.hpp"
#include "store/record_json.hpp"
#include "tune/ceilings_probe.hpp"
#include "tune/gpu_context.hpp"
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
    if (op == "hello") return hello();
    if (op == "problem") return problem(request);
    if (op == "baseline") return baseline(request);
    if (op == "run") return run(request);
    if (op == "ceilings")
      return {{"ok", true},
              {"ceilings", probe_ceilings(*gpu_, request.at("rule").get<StoppingRule>(), request.at("warmup_ms"))}};
    return {{"ok", false}, {"error", "unknown op " + op}};
  }

 private:
  json hello() {
    gpu_ = std::make_unique<GpuContext>(cache_dir_);
    return {{"ok", true}, {"device", gpu_->device()}};
  }

  json problem(const json& request) {
    workload_.reset();
    problem_ = request.at("problem").get<Problem>();
    tolerance_ = request.at("tolerance").get<Tolerance>();
    const KernelFamily& family = find_family(problem_.family);
    int64_t bytes = family.device_bytes(problem_);
    size_t free_bytes = 0, total = 0;
    KTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total));
    if (bytes > static_cast<int64_t>(free_bytes))
      return {{"ok", false},
              {"error", fmt::format("{} needs {:.2f} GiB of device memory; {:.2f} GiB of {:.2f} GiB are free",
                                    problem_.describe(), bytes / 1073741824.0, free_bytes / 1073741824.0,
                                    total / 1073741824.0)}};
    workload_ = family.prepare(problem_, *gpu_, request.at("seed").get<uint64_t>());
    return {{"ok", true}};
  }

  json baseline(const json& request) {
    CandidateRecord rec;
    rec.source = "cublas";
    rec.kernel_name = workload_->baseline_name();
    workload_->poison_output();
    workload_->run_baseline();
    rec.error = workload_->check_output(tolerance_);
    Measurement m = measure(*gpu_, [&] { workload_->run_baseline(); }, request.at("rule").get<StoppingRule>(),
                            request.at("warmup_ms"), 0);
    rec.samples_ms = m.samples_ms;
    rec.time = summarize(m.samples_ms);
    std::string why;
    rec.disposition = within_tolerance(*rec.error, tolerance_, &why) ? Disposition::passed : Disposition::incorrect;
    rec.reason = why;
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
    if (std::string why = check_resources(api, f, rec.launch); !why.empty())
      return outcome(rec, Disposition::launch_failed, why);

    std::vector<void*> args;
    try {
      args = workload_->kernel_args(rec.launch.tensor_maps);
    } catch (const cuda::CudaError& e) {
      return outcome(rec, Disposition::launch_failed, std::string("cannot encode a tensor map: ") + e.what());
    }
    auto launch = [&] { gpu_->launch(f, rec.launch, args.data()); };

    workload_->poison_output();
    try {
      launch();
    } catch (const cuda::CudaError& e) {
      if (!e.sticky()) return outcome(rec, Disposition::launch_failed, e.what());
      throw;
    }
    KTUNE_CUDA(cudaStreamSynchronize(gpu_->stream()));
    rec.error = workload_->check_output(tolerance_);
    std::string why;
    if (!within_tolerance(*rec.error, tolerance_, &why)) return outcome(rec, Disposition::incorrect, why);
    if (request.at("verify_only")) return outcome(rec, Disposition::passed, "");

    Measurement m = measure(*gpu_, launch, request.at("rule").get<StoppingRule>(), request.at("warmup_ms"),
                            request.at("best_ms"));
    rec.samples_ms = m.samples_ms;
    rec.time = summarize(m.samples_ms);
    rec.pruned = m.stop == StopReason::pruned;
    // The output of the last timed run must still be right: catches races that show up only
    // under repetition.
    ErrorStats again = workload_->check_output(tolerance_);
    if (!within_tolerance(again, tolerance_, &why)) {
      rec.error = again;
      return outcome(rec, Disposition::incorrect, "wrong after repeated runs (a race?): " + why);
    }
    return outcome(rec, Disposition::passed, "");
  }

  // Resource problems the launch would hit, said in the user's terms.
  std::string check_resources(const cuda::DriverApi& api, CUfunction f, const Launch& l) {
    const int64_t threads = l.block[0] * l.block[1] * l.block[2];
    int max_threads = 0, regs = 0, static_smem = 0;
    KTUNE_CU(api.func_get_attribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
    KTUNE_CU(api.func_get_attribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    KTUNE_CU(api.func_get_attribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
    if (threads > max_threads)
      return fmt::format("{} threads per block requested; with {} registers per thread this kernel allows {}",
                         threads, regs, max_threads);
    const int64_t limit = gpu_->device().max_smem_per_block_optin;
    if (l.shared_bytes + static_smem > limit)
      return fmt::format("needs {} bytes of shared memory ({} dynamic + {} static); the device allows {}",
                         l.shared_bytes + static_smem, l.shared_bytes, static_smem, limit);
    CUresult r = api.func_set_attribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(l.shared_bytes));
    if (r != CUDA_SUCCESS)
      return fmt::format("cannot raise dynamic shared memory to {} bytes: {}", l.shared_bytes,
                         cuda::driver_error_name(r));
    return "";
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
  }
  return 0;
}

}  // namespace ktune
