// Turning a sweep config into candidates for one problem: the cartesian product of the
// parameters, each with its derived values, constraint verdict, kernel name and launch geometry.
// Combinations a constraint rules out are counted by constraint, not listed: most of a large
// sweep's (gemm_wgmma: all but a few hundred of 518,400 at 4096^3) fail one, and a whole subtree
// of the product fails together when the constraint reads only the parameters above it. A
// combination an expression cannot be evaluated for is kept, marked invalid with the error: one
// bad combination never stops a sweep, and reports can say why it was ruled out.
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
  std::string kernel_name;  // placeholders substituted (valid only)
  Launch launch;            // evaluated grid/block/shared_bytes (only for valid candidates)
  std::optional<int64_t> estimate;  // the config's "estimate" (valid candidates only)
  bool valid = true;
  std::string invalid_reason;  // an evaluation error, or (make_candidate) "constraint failed: <text>"
};

// A sweep's combinations for one problem.
struct Enumeration {
  // The first parameter varying slowest: every valid combination, and every one an expression
  // could not be evaluated for (invalid, with the error).
  std::vector<Candidate> candidates;
  // "constraint failed: <text>" -> how many combinations that constraint ruled out.
  std::map<std::string, int64_t> ruled_out;

  int64_t ruled_out_total() const;
};

// Every combination of the parameters, each evaluated under `context` (problem + device facts).
// `placeholders` maps string placeholders to text (ELEMENT -> "__half"). A combination's verdict
// is the first constraint it fails, taking the constraints in the order of the last parameter
// each reads (through derived values), then as the config lists them; a derived value or
// constraint that cannot be evaluated makes it invalid with the error unless a constraint taken
// earlier rules it out. Throws ConfigError when `context` or `placeholders` lacks a name the
// config uses (a caller's mistake that would otherwise invalidate every candidate) or when the
// constraints leave too many combinations to evaluate one by one.
Enumeration enumerate(const SweepConfig& config, const Bindings& context,
                      const std::map<std::string, std::string>& placeholders);

// One candidate from explicit values (`ktune verify --set BLOCK_M=128 ...`), judged as enumerate
// judges it; one a constraint rules out is returned invalid with that reason and no kernel name.
// Throws ConfigError naming an unknown or a missing parameter; a value outside the parameter's
// list is allowed.
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
