// The current UTC time as text, in the two forms ktune writes: ISO-8601 for records
// ("2026-11-21T20:15:00Z") and the compact basic form that is safe in file names
// ("20261121T201500Z").
#pragma once

#include <string>

namespace ktune {

std::string utc_iso_now();
std::string utc_compact_now();

}  // namespace ktune
