#include "cli/current_winners.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>

#include "cli/common.hpp"
#include "core/device.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"

namespace ktune::cli {
namespace {

// The device facts constraints and launch expressions see, for the GPU of an entry's key.
std::optional<ArchFacts> facts_of(const CacheKey& key) {
  DeviceInfo device;
  device.cc_major = key.cc_major;
  device.cc_minor = key.cc_minor;
  try {
    ArchFacts facts = arch_facts_offline(device.arch());
    facts.sm_count = key.sm_count;
    return facts;
  } catch (const ConfigError&) {
    return std::nullopt;
  }
}

// Each family's own configs (embedded, or the files a declaration names), parsed once for all
// the entries.
using BuiltIn = std::map<std::string, std::vector<SweepConfig>>;
const std::vector<SweepConfig>& configs_of(const KernelFamily& family, BuiltIn& parsed) {
  auto [it, inserted] = parsed.try_emplace(std::string(family.name()));
  if (inserted)
    for (std::string_view path : family.default_configs()) it->second.push_back(embedded_config(path, family));
  return it->second;
}

// Why the entry keeps what it stored, or "" once it is rebuilt.
std::string rebuild(CacheEntry& e, BuiltIn& parsed) {
  const std::string config_name = e.winner_config.empty() ? e.key.config_name : e.winner_config;
  const KernelFamily* family = nullptr;
  for (const KernelFamily* f : all_families())
    if (f->name() == e.key.family) family = f;
  if (!family) return "family " + e.key.family + " is not built in";
  const std::optional<ArchFacts> facts = facts_of(e.key);
  if (!facts) return fmt::format("compute capability {}.{} is not known offline", e.key.cc_major, e.key.cc_minor);
  for (const SweepConfig& config : configs_of(*family, parsed)) {
    if (config.name != config_name) continue;
    const Problem problem{e.key.family, e.key.dims, e.key.dtype, e.key.options};
    const Candidate cand = make_candidate(config, recorded_params(config, e.params), family->context(problem, *facts),
                                          family->placeholders(problem));
    if (!cand.valid) return "the built-in config now rules its parameters out: " + cand.invalid_reason;
    e.kernel_name = cand.kernel_name;
    e.launch = cand.launch;
    return "";
  }
  return "config " + config_name + " is not a built-in config of " + e.key.family;
}

}  // namespace

std::vector<CacheEntry> current_winners(std::vector<CacheEntry> entries, std::vector<std::string>& notes) {
  BuiltIn parsed;
  for (CacheEntry& e : entries) {
    std::string why;
    try {
      why = rebuild(e, parsed);
    } catch (const Error& err) {  // a key that names no valid problem any more
      why = err.what();
    }
    if (!why.empty()) notes.push_back(fmt::format("{}: kept as stored ({})", e.key.str(), why));
  }
  return entries;
}

}  // namespace ktune::cli
