// Turning a sweep config into candidates for one problem: the cartesian product of the
// parameters, each with its derived values, constraint verdict, kernel name and launch geometry.
// A candidate that breaks a constraint or cannot be evaluated is kept, marked invalid with the
// reason: one bad combination never stops a sweep, and reports can say why it was ruled out.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "space/sweep_config.hpp"
#include "core/record.hpp"

namespace ktune {

struct Candidate {
  Bindings params;          // tunables only
  Bindings bindings;        // context + params + derived: everything expressions can see (valid only)
  std::string kernel_name;  // placeholders substituted ("" if a derived value failed)
  Launch launch;            // evaluated grid/block/shared_bytes (only for valid candidates)
  std::optional<int64_t> estimate;  // the config's "estimate" (valid candidates only)
  bool valid = true;
  std::string invalid_reason;  // "constraint failed: <text>" (the first one), or an eval error
};

// Every combination of the parameters, the first parameter varying slowest, each evaluated under
// `context` (problem + device facts). `placeholders` maps string placeholders to text
// (ELEMENT -> "__half"). Throws ConfigError when `context` or `placeholders` lacks a name the
// config uses (a caller's mistake that would otherwise invalidate every candidate) or when the
// product is too large to hold.
std::vector<Candidate> enumerate(const SweepConfig& config, const Bindings& context,
                                 const std::map<std::string, std::string>& placeholders);

// One candidate from explicit values (`ktune verify --set BLOCK_M=128 ...`). Throws ConfigError
// naming an unknown or a missing parameter; a value outside the parameter's list is allowed.
Candidate make_candidate(const SweepConfig& config, const Bindings& params, const Bindings& context,
                         const std::map<std::string, std::string>& placeholders);

// A configuration recorded before a tunable joined its config (a cache entry, a results file)
// lacks it: the tunable takes its first value, which by the configs' convention runs the kernel as
// it ran before the tunable existed (gemm_mma's SPLIT 0). Names the config does not have are kept
// (make_candidate refuses them).
Bindings recorded_params(const SweepConfig& config, Bindings recorded);

// Replaces each {NAME} of `tmpl` with placeholders[NAME], else the decimal bindings[NAME].
// Throws ConfigError for an unknown name or a malformed template.
std::string substitute(std::string_view tmpl, const Bindings& bindings,
                       const std::map<std::string, std::string>& placeholders);

}  // namespace ktune
