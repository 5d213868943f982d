// JSON form of cuda::GpuTelemetry, for results files, following record_json.hpp's rules: an
// unknown (empty) field is left out and a missing or null key reads back as unknown; a key of the
// wrong type throws nlohmann::json::exception, a value that is not an object throws ktune::Error.
// Besides the raw "clock_event_reasons" bits, "clock_event_reason_names" and "throttled" are
// written for people reading the file; they are derived, so reading ignores them.
#pragma once

#include <nlohmann/json.hpp>

#include "core/gpu_telemetry.hpp"

namespace ktune::cuda {

void to_json(nlohmann::json& j, const GpuTelemetry& t);
void from_json(const nlohmann::json& j, GpuTelemetry& t);

}  // namespace ktune::cuda
