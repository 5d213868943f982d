// Choosing a report's ceilings; see ceilings_choice.hpp.
#include "report/ceilings_choice.hpp"

#include <fmt/format.h>

#include "report/datasheet.hpp"
#include "util/error.hpp"

namespace ktune {

Ceilings choose_ceilings(const DeviceInfo& device, const std::optional<std::filesystem::path>& named_file,
                         const std::filesystem::path& cache_file) {
  if (named_file) {
    if (!std::filesystem::exists(*named_file))
      throw ConfigError(fmt::format("--ceilings {}: no such file", named_file->string()));
    if (auto found = CeilingsStore(*named_file).find(device)) return *found;
    throw ConfigError(fmt::format("{} has no ceilings for {} (the results' device)", named_file->string(),
                                  ceilings_key(device)));
  }
  if (auto found = CeilingsStore(cache_file).find(device)) return *found;
  if (auto sheet = datasheet_ceilings(device)) return *sheet;
  throw ConfigError(fmt::format("no ceilings for {}: none measured in {} and no datasheet values; run "
                                "`ktune ceilings` on that GPU, or pass --ceilings FILE",
                                ceilings_key(device), cache_file.string()));
}

}  // namespace ktune
