// Names and one-line descriptions for the plain records in record.hpp.
#include "core/record.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <utility>

namespace ktune {

namespace {

// One table serves both directions, so a new Disposition cannot print without also parsing.
constexpr std::array<std::pair<Disposition, const char*>, 8> kDispositionNames{{
    {Disposition::passed, "passed"},
    {Disposition::incorrect, "incorrect"},
    {Disposition::compile_failed, "compile_failed"},
    {Disposition::invalid, "invalid"},
    {Disposition::launch_failed, "launch_failed"},
    {Disposition::crashed, "crashed"},
    {Disposition::timeout, "timeout"},
    {Disposition::not_run, "not_run"},
}};

}  // namespace

const char* to_string(Role r) { return r == Role::baseline ? "baseline" : "candidate"; }

std::string provider_name(const std::string& source) {
  static const std::map<std::string, std::string> names = {
      {"cublas", "cuBLAS"}, {"cublaslt", "cuBLASLt"}, {"cudnn", "cuDNN"}, {"copy", "copy roof"}, {"user", "yours"}};
  auto it = names.find(source);
  return it == names.end() ? source : it->second;
}

const char* to_string(Disposition d) {
  for (const auto& [value, name] : kDispositionNames)
    if (value == d) return name;
  return "unknown";
}

std::optional<Disposition> disposition_from_string(const std::string& s) {
  for (const auto& [value, name] : kDispositionNames)
    if (s == name) return value;
  return std::nullopt;
}

// wgmma, setmaxnreg and friends exist only on the arch-specific targets (sm_90a, sm_100a); a
// cubin built for them runs on that exact architecture, which is what a tuned kernel wants.
std::string DeviceInfo::arch() const {
  if ((cc_major == 9 || cc_major == 10) && cc_minor == 0) return fmt::format("sm_{}0a", cc_major);
  return fmt::format("sm_{}{}", cc_major, cc_minor);
}

bool CandidateRecord::throttled() const {
  for (const auto* t : {&telemetry_before, &telemetry_after})
    if (*t && (*t)->clock_event_reasons && cuda::throttled(*(*t)->clock_event_reasons)) return true;
  return false;
}

std::string CandidateRecord::clocks_text() const {
  const auto& t = telemetry_after ? telemetry_after : telemetry_before;
  if (!t) return "";
  std::string text;
  if (t->sm_clock_mhz) text += fmt::format("{} MHz", *t->sm_clock_mhz);
  if (t->power_w) text += fmt::format("{}{:.0f} W", text.empty() ? "" : " ", *t->power_w);
  if (throttled()) {
    std::string why;
    for (const auto* r : {&telemetry_before, &telemetry_after})
      if (*r && (*r)->clock_event_reasons)
        for (const std::string& name : cuda::reason_names(*(*r)->clock_event_reasons & cuda::clock_event::throttling))
          if (why.find(name) == std::string::npos) why += (why.empty() ? "" : ",") + name;
    text += " THROTTLED (" + why + ")";
  }
  return text;
}

std::string ratio_text(double ratio) { return ratio > 0 ? fmt::format("{:.3f}x", ratio) : "-"; }

void derive_metrics(CandidateRecord& rec, const Cost& cost, double baseline_ms) {
  if (!rec.time || rec.time->median <= 0) return;
  const double seconds = rec.time->median * 1e-3;
  rec.tflops = cost.flops / seconds / 1e12;
  rec.gbps = cost.min_bytes / seconds / 1e9;
  if (baseline_ms > 0) rec.ratio_vs_baseline = baseline_ms / rec.time->median;
}

}  // namespace ktune
