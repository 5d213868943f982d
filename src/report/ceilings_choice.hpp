// Which ceilings a report uses for the device its results came from: a file named with
// --ceilings (it must have that device), else what `ktune ceilings` measured on it
// (<cache dir>/ceilings.json), else the datasheet, labelled as such.
#pragma once

#include <filesystem>
#include <optional>

#include "store/ceilings.hpp"

namespace ktune {

// Throws ktune::ConfigError when the named file lacks the device, or when nothing is known.
Ceilings choose_ceilings(const DeviceInfo& device, const std::optional<std::filesystem::path>& named_file,
                         const std::filesystem::path& cache_file);

}  // namespace ktune
