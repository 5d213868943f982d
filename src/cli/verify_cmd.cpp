// `ktune verify`: re-check configurations against cuBLAS on fresh random inputs, without timing.
// With --m and --set NAME=VALUE ... it checks that one configuration; without, every best entry
// in the cache made on this GPU (entries tuned from a sweep file are verified when that file is
// given with --config, else skipped with a note). Exit 1 on any mismatch.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <random>
#include <set>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "space/enumerate.hpp"
#include "store/cache.hpp"

namespace ktune::cli {
namespace {

struct Check {
  Problem problem;
  Bindings params;
  std::string config_name;
};

Bindings parse_settings(const std::vector<std::string>& settings) {
  Bindings params;
  for (const std::string& s : settings) {
    size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(fmt::format("--set {}: expected NAME=INTEGER", s));
    std::string value = s.substr(eq + 1);
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw ConfigError(fmt::format("--set {}: '{}' is not an integer", s, value));
    params[s.substr(0, eq)] = v;
  }
  return params;
}

// The config a cache entry names: the one given with --config when its name matches, else the
// built-in one of that name; nothing when neither (an entry tuned from a sweep file).
std::optional<SweepConfig> config_named(const std::string& name, const CommonFlags& common,
                                        const KernelFamily& family) {
  if (!common.config.empty())
    for (SweepConfig& c : load_configs(common, family))
      if (c.name == name) return std::move(c);
  const std::string path = "configs/" + name + ".json";
  if (!find_embedded(path)) return std::nullopt;
  return embedded_config(path, family);
}

// The config whose parameters are exactly the ones given with --set (the families' parameter
// sets differ), so `verify --set ...` needs no config name.
SweepConfig config_for(const Bindings& params, const CommonFlags& common, const KernelFamily& family) {
  std::vector<SweepConfig> configs = load_configs(common, family);
  std::string known;
  for (SweepConfig& c : configs) {
    std::set<std::string> names;
    for (const auto& [name, values] : c.parameters) names.insert(name);
    std::set<std::string> given;
    for (const auto& [name, value] : params) given.insert(name);
    if (names == given || configs.size() == 1) return std::move(c);
    known += fmt::format("\n  {}: {}", c.name, fmt::join(names, ", "));
  }
  throw ConfigError("--set names no config's parameters exactly; the configs and their parameters:" + known);
}

}  // namespace

void setup_verify(CLI::App& app, int& exit_code) {
  struct Options {
    ProblemFlags problem;
    CommonFlags common;
    MeasureFlags measure;
    std::vector<std::string> settings;
    uint64_t seed = 0;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "check configurations against cuBLAS (one given with --set, or every cached best on this GPU)");
  add_problem_flags(*cmd, opts->problem, find_family("gemm"), /*required=*/false);  // --set is gemm-only so far
  add_common_flags(*cmd, opts->common);
  cmd->add_option("--set", opts->settings, "a parameter value, NAME=VALUE (repeat for each parameter)");
  cmd->add_option("--seed", opts->seed, "input seed (default: a fresh random one)");
  cmd->add_option("--timeout", opts->measure.timeout_s, "seconds before a run counts as hung")->capture_default_str();
  cmd->add_option("--rtol", opts->measure.rtol, "relative tolerance (default: per dtype, see README)");
  cmd->add_option("--atol", opts->measure.atol, "absolute tolerance (default: per dtype)");
  cmd->add_option("--norm-tol", opts->measure.norm_tol, "bound on ||out-ref||/||ref|| (default: per dtype)");
  cmd->callback([opts, &exit_code] {
    const KernelFamily& family = find_family("gemm");
    if (!opts->settings.empty() && !opts->problem.given())
      throw ConfigError("verify --set needs the problem too: --m (and --n, --k, --dtype, --layout)");
    if (opts->settings.empty() && opts->problem.given())
      throw ConfigError("verify --m needs the configuration: --set NAME=VALUE for each parameter");

    // Bad input is reported before any GPU work: the settings must name exactly the parameters.
    std::vector<Check> checks;
    if (!opts->settings.empty()) {
      Bindings params = parse_settings(opts->settings);
      SweepConfig config = config_for(params, opts->common, family);
      Check check{make_problem(family, opts->problem), params, config.name};
      check_problem(check.problem);
      make_candidate(config, check.params, family.context(check.problem, arch_facts_offline("sm_90a")),
                     family.placeholders(check.problem));
      checks.push_back(std::move(check));
    }

    Session session(session_options(opts->common, opts->measure));
    const DeviceInfo& device = session.device();
    BestConfigCache cache(cache_dir(opts->common) / "best_configs.json");
    if (opts->settings.empty()) {
      for (const CacheEntry& e : cache.list()) {
        const CacheKey& k = e.key;
        if (k.gpu_name != device.name || k.cc_major != device.cc_major || k.cc_minor != device.cc_minor) continue;
        checks.push_back({Problem{k.family, k.dims, k.dtype, k.options}, e.params, e.winner_config});
      }
      if (checks.empty()) {
        fmt::print("the cache ({}) has no entries for {}: nothing to verify\n", cache.path().string(), device.name);
        exit_code = 1;
        return;
      }
    }

    const uint64_t seed = opts->seed ? opts->seed : std::random_device{}();
    fmt::print("device: {}  input seed: {}\n", device.name, seed);
    NvrtcCompiler compiler(cache_dir(opts->common));
    const ToleranceOverride override{opts->measure.rtol, opts->measure.atol, opts->measure.norm_tol};
    int failures = 0, skipped = 0;
    for (const Check& check : checks) {
      const KernelFamily& fam = find_family(check.problem.family);
      check_problem(check.problem);
      std::optional<SweepConfig> named =
          opts->settings.empty() ? config_named(check.config_name, opts->common, fam)
                                 : std::optional(config_for(check.params, opts->common, fam));
      if (!named) {  // an entry tuned from a sweep file this run was not given: say so, go on
        ++skipped;
        fmt::print("SKIP {}  {}\n     config '{}' is not built into ktune: pass its file with --config to verify it\n",
                   describe(check.problem), short_params(check.params), check.config_name);
        continue;
      }
      const SweepConfig& config = *named;
      KernelSource source = resolve_kernel_source(config, opts->common.kernel);
      Candidate cand = make_candidate(config, check.params, fam.context(check.problem, arch_facts(device)),
                                      fam.placeholders(check.problem));
      CandidateRecord rec;
      rec.params = check.params;
      rec.kernel_name = cand.kernel_name;
      rec.launch = cand.launch;
      const Tolerance tol = tolerance_for(fam, check.problem, override);
      if (!cand.valid) {
        rec.disposition = Disposition::invalid;
        rec.reason = cand.invalid_reason;
      } else {
        CompileRequest req{source.name, source.text, source.headers, cand.kernel_name, device.arch(), {}};
        rec.compile = compiler.compile(req);
        if (!rec.compile.ok) {
          rec.disposition = Disposition::compile_failed;
          rec.reason = rec.compile.log;
        } else {
          session.set_problem(check.problem, tol, seed);
          session.run_candidate(rec, StoppingRule{}, 0, 0, /*verify_only=*/true);
        }
      }
      const bool ok = rec.disposition == Disposition::passed;
      failures += !ok;
      fmt::print("{:<4} {}  {}", ok ? "PASS" : "FAIL", describe(check.problem), short_params(check.params));
      if (rec.error)
        fmt::print("  max abs {:.2e}  max rel {:.2e}  norm {:.2e}  (atol {:g} rtol {:g} norm {:g})", rec.error->max_abs,
                   rec.error->max_rel, rec.error->norm_rel, tol.atol, tol.rtol, tol.max_norm_rel);
      if (!ok) fmt::print("\n     {}: {}", to_string(rec.disposition), rec.reason);
      fmt::print("\n");
    }
    fmt::print("{} passed, {} failed{}\n", checks.size() - failures - skipped, failures,
               skipped ? fmt::format(", {} skipped", skipped) : "");
    exit_code = failures ? 1 : 0;
  });
}

}  // namespace ktune::cli
