// The plain data that flows through a sweep: what happened to each candidate (what a problem and
// a device are: core/problem.hpp, core/device.hpp). Every stage (enumerate -> compile -> run ->
// store) fills in part of a CandidateRecord; nothing here knows how.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/device.hpp"
#include "core/problem.hpp"
#include "core/gpu_telemetry.hpp"

namespace ktune {

// How a candidate ended. Mirrors the CUTLASS profiler's Disposition: a bad candidate is data.
enum class Disposition {
  passed,          // ran, matched the reference, timed
  incorrect,       // ran, but the output does not match the reference within tolerance
  compile_failed,  // NVRTC rejected the source
  invalid,         // ruled out before running: constraints, resources, alignment
  launch_failed,   // the launch itself was refused (too much shared memory, registers, threads)
  crashed,         // the worker died or hit a sticky CUDA error (illegal address, ...)
  timeout,         // the worker did not answer in time (a hung kernel) and was killed
  not_run,         // skipped: e.g. --dry-run or no GPU
};

const char* to_string(Disposition d);

// How an invalid candidate's reason starts when one of its config's constraints ruled it out
// (space/enumerate.cpp writes it; results files count such candidates instead of listing them).
inline constexpr std::string_view kConstraintFailed = "constraint failed: ";
std::optional<Disposition> disposition_from_string(const std::string& s);

// What the compiler said about one candidate.
struct CompileInfo {
  bool ok = false;
  bool from_cache = false;
  double compile_ms = 0;
  int registers = -1;
  int spill_stores = 0;      // bytes
  int spill_loads = 0;       // bytes
  int stack_frame = 0;       // bytes
  int static_smem = 0;       // bytes (ptxas "smem")
  std::vector<std::string> perf_warnings;  // ptxas "potential performance loss" lines (C75xx)
  std::string log;           // full NVRTC log, kept only when something went wrong
  std::string cubin_path;    // where the cubin lives in the on-disk compile cache
  std::string lowered_name;  // mangled kernel name
};

// Statistics over timed samples, all in milliseconds.
struct TimeStats {
  size_t n = 0;
  double median = 0, mean = 0, min = 0, max = 0, stdev = 0, p20 = 0, p80 = 0;
};

// Output compared with the fp32 reference.
struct ErrorStats {
  double max_abs = 0;
  double max_rel = 0;        // |out-ref| / max(|ref|, tiny)
  double norm_rel = 0;       // ||out-ref|| / ||ref||
  int64_t nonfinite = 0;     // NaN/Inf in the output (an unwritten poisoned element shows here)
  // elements with |out-ref| > atol + rtol*|ref| + |round(ref)-ref|
  int64_t mismatches = 0;
  // ||round(ref)-ref|| / ||ref||, round to the output's type: the error floor, what the exact
  // answer itself scores once stored in that type. Tolerances sit on top of it.
  double floor_norm_rel = 0;
};

// The worse of two comparisons, field by field, for a family with several outputs (a norm's Y and
// its statistics): the candidate passes only if every output does. The normalized error keeps
// the output whose error is furthest above its own floor, with that floor.
inline ErrorStats worst_of(ErrorStats a, const ErrorStats& b) {
  a.max_abs = a.max_abs > b.max_abs ? a.max_abs : b.max_abs;
  a.max_rel = a.max_rel > b.max_rel ? a.max_rel : b.max_rel;
  if (b.norm_rel - b.floor_norm_rel > a.norm_rel - a.floor_norm_rel) {
    a.norm_rel = b.norm_rel;
    a.floor_norm_rel = b.floor_norm_rel;
  }
  a.nonfinite += b.nonfinite;
  a.mismatches += b.mismatches;
  return a;
}

// An operand handed to the kernel as a TMA descriptor instead of a pointer (Hopper kernels): the
// worker encodes it over the operand's whole matrix with this box and swizzle.
struct TensorMapSpec {
  std::string operand;       // "A", "B", ...
  int64_t box[2] = {0, 0};   // elements, innermost (contiguous) dimension first
  int swizzle = 0;           // bytes: 0, 32, 64 or 128
};

struct Launch {
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
  int64_t shared_bytes = 0;
  std::vector<TensorMapSpec> tensor_maps;  // empty: every operand is passed as a pointer
};

// What a record is in its problem's run: a configuration being tuned or measured, or the library
// call it is compared with. The provider (CandidateRecord::source) says whose code ran.
enum class Role { candidate, baseline };
const char* to_string(Role r);

struct CandidateRecord {
  Role role = Role::candidate;
  // Whose code: "ktune" for a tuned kernel; a baseline's library ("cublas", "cublaslt", "cudnn",
  // ...), as its family names it (Workload::baselines()).
  std::string source;
  bool is_baseline() const { return role == Role::baseline; }
  std::string config_name;   // sweep config name, e.g. "gemm_mma"
  Bindings params;           // the tunables only
  std::string kernel_name;   // name expression, e.g. ktune_gemm_mma<__half, 1, 1, 128, ...>
  Launch launch;
  std::optional<int64_t> estimate;  // its config's predicted time: the search order (valid candidates)
  Disposition disposition = Disposition::not_run;
  std::string reason;        // why, for anything but passed
  CompileInfo compile;
  std::optional<TimeStats> time;
  std::vector<double> samples_ms;  // raw samples (kept for reports and comparisons)
  // Samples taken in each interleaved round against the baseline, in order (bench and the final
  // re-measurement of a sweep; empty for a sweep's one-pass timing). Round r of a kernel and
  // round r of its baseline ran back to back, so their ratio cancels drift between rounds.
  std::vector<int> rounds;
  bool pruned = false;       // sampling stopped early: clearly slower than the best so far
  // The GPU's clocks, power and throttle reasons (NVML) right before and right after the timed
  // samples; empty where NVML is not available. A record measured while throttled says so.
  std::optional<cuda::GpuTelemetry> telemetry_before, telemetry_after;
  bool throttled() const;
  // "1515 MHz 689 W THROTTLED (sw_power_cap)": the reading after the samples, and the throttle
  // reasons of either reading; empty without NVML.
  std::string clocks_text() const;
  std::optional<ErrorStats> error;
  double tflops = 0;
  double gbps = 0;
  double ratio_vs_baseline = 0;  // baseline median / this median (>1 means faster than the baseline)
};

// Candidates of one config that one constraint (or its arch) ruled out before anything was
// compiled: counted, not recorded one by one (a GEMM sweep has hundreds of thousands).
struct RuledOut {
  std::string config_name, reason;
  int64_t count = 0;
  bool operator==(const RuledOut&) const = default;
};

// How a provider is written for people: "cublas" -> "cuBLAS", "cudnn" -> "cuDNN"; others as given.
std::string provider_name(const std::string& source);

// Cost model of a problem: what the roofline needs.
struct Cost {
  double flops = 0;
  double min_bytes = 0;  // each input read once, each output written once
};

// TFLOPS, GB/s and the ratio against the baseline (baseline median / this median) from the
// record's median; nothing for a record without timing.
void derive_metrics(CandidateRecord& rec, const Cost& cost, double baseline_ms);

// A ratio as tables show it: "0.975x", or "-" where there is none (0: no baseline was timed).
std::string ratio_text(double ratio);

}  // namespace ktune
