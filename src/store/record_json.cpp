// JSON (de)serialization of the records in core/record.hpp; see record_json.hpp for the rules.
#include "store/record_json.hpp"

#include "store/telemetry_json.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "util/error.hpp"

namespace ktune {

using nlohmann::json;

json double_to_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double double_from_json(const json& j) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return j.get<double>();  // throws type_error for anything but a number
}

namespace {

// Missing keys keep the default already in `out`.
template <typename T>
void read(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end()) it->get_to(out);
}

void read_double(const json& j, const char* key, double& out) {
  if (auto it = j.find(key); it != j.end()) out = double_from_json(*it);
}

// j.find() on a non-object finds nothing, which would quietly read as all defaults.
void expect_object(const json& j, const char* what) {
  if (!j.is_object())
    throw Error(std::string(what) + " must be a JSON object, got " + std::string(j.type_name()));
}

void read_dim3(const json& j, const char* key, int64_t (&out)[3]) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (!it->is_array() || it->size() != 3)
    throw Error("\"" + std::string(key) + "\" must be an array of 3 integers, got " + it->dump());
  for (int i = 0; i < 3; ++i) (*it)[i].get_to(out[i]);
}

}  // namespace

void to_json(json& j, const Disposition& d) { j = to_string(d); }

void from_json(const json& j, Disposition& d) {
  const auto& name = j.get_ref<const std::string&>();
  auto parsed = disposition_from_string(name);
  if (!parsed) throw Error("unknown disposition \"" + name + "\"");
  d = *parsed;
}

// A problem's options sit beside family, dims and dtype as string fields ({"family": "gemm", ...,
// "layout": "rr"}), the form results files had before options existed; every other string field
// read back is an option.
void to_json(json& j, const Problem& p) {
  j = json{{"family", p.family}, {"dims", p.dims}, {"dtype", p.dtype}};
  for (const auto& [name, value] : p.options) {
    if (j.contains(name)) throw Error("problem option '" + name + "' clashes with a field of the same name");
    j[name] = value;
  }
}

void from_json(const json& j, Problem& p) {
  expect_object(j, "Problem");
  read(j, "family", p.family);
  read(j, "dims", p.dims);
  read(j, "dtype", p.dtype);
  p.options.clear();
  for (const auto& [name, value] : j.items())
    if (name != "family" && name != "dims" && name != "dtype" && value.is_string())
      p.options[name] = value.get<std::string>();
}

void to_json(json& j, const DeviceInfo& d) {
  j = json{{"name", d.name},
           {"cc_major", d.cc_major},
           {"cc_minor", d.cc_minor},
           {"arch", d.arch()},
           {"sm_count", d.sm_count},
           {"l2_bytes", d.l2_bytes},
           {"global_mem_bytes", d.global_mem_bytes},
           {"max_smem_per_block_optin", d.max_smem_per_block_optin},
           {"max_threads_per_block", d.max_threads_per_block},
           {"max_regs_per_block", d.max_regs_per_block},
           {"sm_clock_khz", d.sm_clock_khz},
           {"mem_clock_khz", d.mem_clock_khz},
           {"mem_bus_width_bits", d.mem_bus_width_bits},
           {"driver_version", d.driver_version}};
}

void from_json(const json& j, DeviceInfo& d) {
  expect_object(j, "DeviceInfo");
  read(j, "name", d.name);
  read(j, "cc_major", d.cc_major);
  read(j, "cc_minor", d.cc_minor);
  read(j, "sm_count", d.sm_count);
  read(j, "l2_bytes", d.l2_bytes);
  read(j, "global_mem_bytes", d.global_mem_bytes);
  read(j, "max_smem_per_block_optin", d.max_smem_per_block_optin);
  read(j, "max_threads_per_block", d.max_threads_per_block);
  read(j, "max_regs_per_block", d.max_regs_per_block);
  read(j, "sm_clock_khz", d.sm_clock_khz);
  read(j, "mem_clock_khz", d.mem_clock_khz);
  read(j, "mem_bus_width_bits", d.mem_bus_width_bits);
  read(j, "driver_version", d.driver_version);
}

void to_json(json& j, const CompileInfo& c) {
  j = json{{"ok", c.ok},
           {"from_cache", c.from_cache},
           {"compile_ms", double_to_json(c.compile_ms)},
           {"registers", c.registers},
           {"spill_stores", c.spill_stores},
           {"spill_loads", c.spill_loads},
           {"stack_frame", c.stack_frame},
           {"static_smem", c.static_smem},
           {"perf_warnings", c.perf_warnings},
           {"log", c.log},
           {"cubin_path", c.cubin_path},
           {"lowered_name", c.lowered_name}};
}

void from_json(const json& j, CompileInfo& c) {
  expect_object(j, "CompileInfo");
  read(j, "ok", c.ok);
  read(j, "from_cache", c.from_cache);
  read_double(j, "compile_ms", c.compile_ms);
  read(j, "registers", c.registers);
  read(j, "spill_stores", c.spill_stores);
  read(j, "spill_loads", c.spill_loads);
  read(j, "stack_frame", c.stack_frame);
  read(j, "static_smem", c.static_smem);
  read(j, "perf_warnings", c.perf_warnings);
  read(j, "log", c.log);
  read(j, "cubin_path", c.cubin_path);
  read(j, "lowered_name", c.lowered_name);
}

void to_json(json& j, const TimeStats& t) {
  j = json{{"n", t.n},
           {"median", double_to_json(t.median)},
           {"mean", double_to_json(t.mean)},
           {"min", double_to_json(t.min)},
           {"max", double_to_json(t.max)},
           {"stdev", double_to_json(t.stdev)},
           {"p20", double_to_json(t.p20)},
           {"p80", double_to_json(t.p80)}};
}

void from_json(const json& j, TimeStats& t) {
  expect_object(j, "TimeStats");
  read(j, "n", t.n);
  read_double(j, "median", t.median);
  read_double(j, "mean", t.mean);
  read_double(j, "min", t.min);
  read_double(j, "max", t.max);
  read_double(j, "stdev", t.stdev);
  read_double(j, "p20", t.p20);
  read_double(j, "p80", t.p80);
}

void to_json(json& j, const ErrorStats& e) {
  j = json{{"max_abs", double_to_json(e.max_abs)},
           {"max_rel", double_to_json(e.max_rel)},
           {"norm_rel", double_to_json(e.norm_rel)},
           {"floor_norm_rel", double_to_json(e.floor_norm_rel)},
           {"nonfinite", e.nonfinite},
           {"mismatches", e.mismatches}};
}

void from_json(const json& j, ErrorStats& e) {
  expect_object(j, "ErrorStats");
  read_double(j, "max_abs", e.max_abs);
  read_double(j, "max_rel", e.max_rel);
  read_double(j, "norm_rel", e.norm_rel);
  if (j.contains("floor_norm_rel")) read_double(j, "floor_norm_rel", e.floor_norm_rel);  // since 2026-11-27
  read(j, "nonfinite", e.nonfinite);
  read(j, "mismatches", e.mismatches);
}

void to_json(json& j, const TensorMapSpec& t) {
  j = json{{"operand", t.operand}, {"box", {t.box[0], t.box[1]}}, {"swizzle", t.swizzle}};
}

void from_json(const json& j, TensorMapSpec& t) {
  expect_object(j, "TensorMapSpec");
  read(j, "operand", t.operand);
  if (auto it = j.find("box"); it != j.end()) {
    if (!it->is_array() || it->size() != 2) throw Error("TensorMapSpec: \"box\" must be a list of 2 integers");
    t.box[0] = (*it)[0].get<int64_t>();
    t.box[1] = (*it)[1].get<int64_t>();
  }
  read(j, "swizzle", t.swizzle);
}

void to_json(json& j, const Launch& l) {
  j = json{{"grid", {l.grid[0], l.grid[1], l.grid[2]}},
           {"block", {l.block[0], l.block[1], l.block[2]}},
           {"shared_bytes", l.shared_bytes}};
  if (!l.tensor_maps.empty()) j["tensor_maps"] = l.tensor_maps;
}

void from_json(const json& j, Launch& l) {
  expect_object(j, "Launch");
  read_dim3(j, "grid", l.grid);
  read_dim3(j, "block", l.block);
  read(j, "shared_bytes", l.shared_bytes);
  read(j, "tensor_maps", l.tensor_maps);
}

void to_json(json& j, const Cost& c) {
  j = json{{"flops", double_to_json(c.flops)}, {"min_bytes", double_to_json(c.min_bytes)}};
}

void from_json(const json& j, Cost& c) {
  expect_object(j, "Cost");
  read_double(j, "flops", c.flops);
  read_double(j, "min_bytes", c.min_bytes);
}

void to_json(json& j, const CandidateRecord& r) {
  j = json{{"role", to_string(r.role)},
           {"source", r.source},
           {"config_name", r.config_name},
           {"params", r.params},
           {"kernel_name", r.kernel_name},
           {"disposition", r.disposition},
           {"reason", r.reason}};
  // A sweep rules out most combinations before compiling them: those records carry only what
  // decided them, which keeps a results file of thousands of candidates small. Reading fills
  // the defaults back in.
  const bool compiled = r.compile.ok || !r.compile.log.empty() || r.compile.registers >= 0;
  if (compiled) j["compile"] = r.compile;
  if (compiled || r.is_baseline()) j["launch"] = r.launch;
  if (r.estimate) j["estimate"] = *r.estimate;
  if (r.time) j["time"] = *r.time;
  if (!r.samples_ms.empty()) {
    json samples = json::array();
    for (double s : r.samples_ms) samples.push_back(double_to_json(s));
    j["samples_ms"] = std::move(samples);
  }
  if (!r.rounds.empty()) j["rounds"] = r.rounds;
  if (r.telemetry_before) j["telemetry_before"] = *r.telemetry_before;
  if (r.telemetry_after) j["telemetry_after"] = *r.telemetry_after;
  if (r.error) j["error"] = *r.error;
  if (r.time) {
    j["pruned"] = r.pruned;
    j["tflops"] = double_to_json(r.tflops);
    j["gbps"] = double_to_json(r.gbps);
    j["ratio_vs_baseline"] = double_to_json(r.ratio_vs_baseline);
  }
}

void from_json(const json& j, CandidateRecord& r) {
  expect_object(j, "CandidateRecord");
  read(j, "source", r.source);
  // Files written before roles existed had one baseline, cuBLAS, known by its source.
  if (j.contains("role")) {
    const std::string role = j.at("role").get<std::string>();
    if (role != "candidate" && role != "baseline") throw Error("unknown role \"" + role + "\"");
    r.role = role == "baseline" ? Role::baseline : Role::candidate;
  } else {
    r.role = r.source == "cublas" ? Role::baseline : Role::candidate;
  }
  read(j, "config_name", r.config_name);
  read(j, "params", r.params);
  read(j, "kernel_name", r.kernel_name);
  read(j, "launch", r.launch);
  read(j, "disposition", r.disposition);
  read(j, "reason", r.reason);
  read(j, "compile", r.compile);
  if (auto it = j.find("estimate"); it != j.end() && !it->is_null()) r.estimate = it->get<int64_t>();
  if (auto it = j.find("time"); it != j.end() && !it->is_null()) r.time = it->get<TimeStats>();
  if (auto it = j.find("samples_ms"); it != j.end()) {
    r.samples_ms.clear();
    for (const auto& s : it->get_ref<const json::array_t&>()) r.samples_ms.push_back(double_from_json(s));
  }
  read(j, "rounds", r.rounds);
  if (auto it = j.find("telemetry_before"); it != j.end() && !it->is_null())
    r.telemetry_before = it->get<cuda::GpuTelemetry>();
  if (auto it = j.find("telemetry_after"); it != j.end() && !it->is_null())
    r.telemetry_after = it->get<cuda::GpuTelemetry>();
  read(j, "pruned", r.pruned);
  if (auto it = j.find("error"); it != j.end() && !it->is_null()) r.error = it->get<ErrorStats>();
  read_double(j, "tflops", r.tflops);
  read_double(j, "gbps", r.gbps);
  read_double(j, "ratio_vs_baseline", r.ratio_vs_baseline);
  // Results files written before the key was renamed (every committed one before 2026-11-27).
  if (!j.contains("ratio_vs_baseline")) read_double(j, "ratio_vs_reference", r.ratio_vs_baseline);
}

}  // namespace ktune
