// `ktune ceilings`: measure this GPU's roofs (copy bandwidth, cuBLAS peak TFLOPS per dtype) in the
// worker and keep them in <cache dir>/ceilings.json, where `ktune report` finds them.
#include <fmt/format.h>

#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "store/ceilings.hpp"
#include "tune/session.hpp"
#include "util/fs.hpp"

namespace ktune::cli {

void setup_ceilings(CLI::App& app, int& exit_code) {
  struct Options {
    std::string cache_dir;
    double warmup_ms = 200;
    double max_time_ms = 2000;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "ceilings", "measure this GPU's copy bandwidth and cuBLAS peak TFLOPS (fp16, bf16, tf32, and fp8 from sm_89) for reports");
  cmd->add_option("--cache-dir", opts->cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  cmd->add_option("--warmup-ms", opts->warmup_ms, "warmup before each measurement (clocks must leave idle)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd->add_option("--max-time-ms", opts->max_time_ms, "timing budget per measurement")
      ->check(at_least(0, true))
      ->capture_default_str();
  cmd->callback([opts, &exit_code] {
    const std::filesystem::path dir =
        opts->cache_dir.empty() ? default_cache_dir() : std::filesystem::path(opts->cache_dir);
    StoppingRule rule;
    rule.max_time_ms = opts->max_time_ms;
    rule.min_time_ms = std::min(rule.min_time_ms, rule.max_time_ms);
    validate(rule);

    SessionOptions so;
    so.compile_cache_dir = dir;
    Session session(so);
    const DeviceInfo& device = session.device();
    fmt::print("device: {} ({}, {} SMs, driver {})\n", device.name, device.arch(), device.sm_count,
               device.driver_version);
    Ceilings ceilings = session.measure_ceilings(rule, opts->warmup_ms);
    ceilings.measured_at = make_run_info(device).started_at;

    auto line = [](const std::string& name, const std::string& value, const CeilingProbe& p) {
      fmt::print("{:<5} {:>13}   {}   median {:.4f} ms, {} samples\n", name, value, p.what, p.time.median, p.time.n);
    };
    line("copy", fmt::format("{:.0f} GB/s", ceilings.copy_gbps), ceilings.probes.at("copy"));
    for (const auto& [dtype, tflops] : ceilings.tflops)
      line(dtype == "fp32" ? "tf32" : dtype, fmt::format("{:.1f} TFLOPS", tflops), ceilings.probes.at(dtype));

    CeilingsStore store(dir / "ceilings.json");
    store.put(device, ceilings);
    fmt::print("saved to {} ({})\n", store.path().string(), ceilings_key(device));
    exit_code = 0;
  });
}

}  // namespace ktune::cli
