#include "store/telemetry_json.hpp"

#include <string>

#include "util/error.hpp"

namespace ktune::cuda {

using nlohmann::json;

namespace {

template <typename T>
void write(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

template <typename T>
void read(const json& j, const char* key, std::optional<T>& out) {
  out.reset();
  if (auto it = j.find(key); it != j.end() && !it->is_null()) out = it->get<T>();
}

}  // namespace

void to_json(json& j, const GpuTelemetry& t) {
  j = json::object();
  write(j, "sm_clock_mhz", t.sm_clock_mhz);
  write(j, "mem_clock_mhz", t.mem_clock_mhz);
  write(j, "power_w", t.power_w);
  write(j, "power_limit_w", t.power_limit_w);
  write(j, "temperature_c", t.temperature_c);
  write(j, "clock_event_reasons", t.clock_event_reasons);
  if (t.clock_event_reasons) {
    j["clock_event_reason_names"] = reason_names(*t.clock_event_reasons);
    j["throttled"] = throttled(*t.clock_event_reasons);
  }
}

void from_json(const json& j, GpuTelemetry& t) {
  // j.find() on a non-object finds nothing, which would quietly read as "all unknown".
  if (!j.is_object())
    throw Error("GpuTelemetry must be a JSON object, got " + std::string(j.type_name()));
  read(j, "sm_clock_mhz", t.sm_clock_mhz);
  read(j, "mem_clock_mhz", t.mem_clock_mhz);
  read(j, "power_w", t.power_w);
  read(j, "power_limit_w", t.power_limit_w);
  read(j, "temperature_c", t.temperature_c);
  read(j, "clock_event_reasons", t.clock_event_reasons);
}

}  // namespace ktune::cuda
