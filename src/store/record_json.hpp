// JSON form of every record in core/record.hpp. The worker protocol, the results files and the
// best-config cache all use these, so a record reads back the same wherever it was written.
//
// Reading is lenient about missing keys (they keep the struct's default, so files from older
// versions still load) and strict about types: a key of the wrong type throws
// nlohmann::json::exception; a record that is not an object, a launch dimension that is not 3
// integers, or an unknown disposition name throws ktune::Error. Non-finite doubles
// (an error norm over a NaN output) are written as the strings "nan", "inf", "-inf", because JSON
// has no such numbers and nlohmann would write null.
#pragma once

#include <nlohmann/json.hpp>

#include "core/record.hpp"

namespace ktune {

// Bindings is a std::map<std::string, int64_t>: nlohmann handles it as a JSON object already.

void to_json(nlohmann::json& j, const Disposition& d);
void from_json(const nlohmann::json& j, Disposition& d);

void to_json(nlohmann::json& j, const Problem& p);
void from_json(const nlohmann::json& j, Problem& p);

void to_json(nlohmann::json& j, const DeviceInfo& d);  // also writes "arch", ignored on read
void from_json(const nlohmann::json& j, DeviceInfo& d);

void to_json(nlohmann::json& j, const CompileInfo& c);
void from_json(const nlohmann::json& j, CompileInfo& c);

void to_json(nlohmann::json& j, const TimeStats& t);
void from_json(const nlohmann::json& j, TimeStats& t);

void to_json(nlohmann::json& j, const ErrorStats& e);
void from_json(const nlohmann::json& j, ErrorStats& e);

void to_json(nlohmann::json& j, const TensorMapSpec& t);
void from_json(const nlohmann::json& j, TensorMapSpec& t);
void to_json(nlohmann::json& j, const Launch& l);  // {"grid":[x,y,z],"block":[x,y,z],"shared_bytes":n}
void from_json(const nlohmann::json& j, Launch& l);

void to_json(nlohmann::json& j, const Cost& c);
void from_json(const nlohmann::json& j, Cost& c);

// "time" and "error" are left out when absent (null reads as absent too).
void to_json(nlohmann::json& j, const CandidateRecord& r);
void from_json(const nlohmann::json& j, CandidateRecord& r);

// A double as JSON, non-finite values as strings; and back (also accepting null as NaN).
nlohmann::json double_to_json(double v);
double double_from_json(const nlohmann::json& j);

}  // namespace ktune
