// The ceilings measurements; see ceilings_probe.hpp for what runs and why.
#include "tune/ceilings_probe.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>

#include "gpu/timing_loop.hpp"
#include "measure/stats.hpp"
#include "cuda/check.hpp"
#include "cuda/resources.hpp"
#include "families/family.hpp"
#include "gpu/gpu_context.hpp"

namespace ktune {
namespace {

constexpr size_t kCopyBytes = size_t(1) << 30;
constexpr int64_t kGemmSize = 8192;

CeilingProbe time_work(GpuContext& gpu, const std::function<void()>& work, const StoppingRule& rule,
                       double warmup_ms, std::string what, double amount) {
  CeilingProbe probe;
  probe.what = std::move(what);
  probe.work = amount;
  probe.time = summarize(measure(gpu, work, rule, warmup_ms, 0).samples_ms);
  return probe;
}

// Work per second of the median run, in units of 1e`exponent`.
double rate(const CeilingProbe& p, double exponent) {
  return p.work / (p.time.median * 1e-3) / std::pow(10.0, exponent);
}

}  // namespace

Ceilings probe_ceilings(GpuContext& gpu, const StoppingRule& rule, double warmup_ms) {
  Ceilings c;
  c.source = "measured";
  c.label = gpu.device().name;

  {
    size_t free_bytes = 0, total = 0;
    KTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total));
    // Far beyond any L2, so the copy streams from and to DRAM; 1 MiB-aligned.
    const size_t bytes = std::min(kCopyBytes, free_bytes / 4) & ~((size_t(1) << 20) - 1);
    if (bytes == 0) throw Error("too little free device memory to measure the copy bandwidth");
    cuda::DeviceBuffer src(bytes), dst(bytes);
    KTUNE_CUDA(cudaMemsetAsync(src.get(), 1, bytes, gpu.stream()));
    auto copy = [&] {
      KTUNE_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, gpu.stream()));
    };
    CeilingProbe p = time_work(gpu, copy, rule, warmup_ms,
                               fmt::format("cudaMemcpyAsync device-to-device, {} MiB", bytes >> 20), 2.0 * bytes);
    c.copy_gbps = rate(p, 9);
    c.probes["copy"] = std::move(p);
  }

  const KernelFamily& gemm = find_family("gemm");
  for (const std::string dtype : {"fp16", "bf16", "fp32", "fp8"}) {
    // fp8 tensor cores exist from sm_89 on, and cuBLASLt's fp8 GEMM takes layout rc only.
    const bool fp8 = dtype == "fp8";
    if (fp8 && arch_facts(gpu.device()).arch < 89) continue;
    const Problem problem{"gemm", {{"M", kGemmSize}, {"N", kGemmSize}, {"K", kGemmSize}}, dtype, {{"layout", fp8 ? "rc" : "rr"}}};
    std::unique_ptr<Workload> w = gemm.prepare(problem, gpu, 20261121);
    CeilingProbe p = time_work(gpu, [&] { w->run_baseline(0); }, rule, warmup_ms,
                               fmt::format("{} {}x{}x{}", w->baselines().front().name, kGemmSize, kGemmSize, kGemmSize),
                               gemm.cost(problem).flops);
    c.tflops[dtype] = rate(p, 12);
    c.probes[dtype] = std::move(p);
  }
  return c;
}

}  // namespace ktune
