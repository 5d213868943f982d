// `ktune verify`: re-check configurations against their family's reference on fresh random inputs,
// without timing. `ktune verify` checks every best entry in the cache made on this GPU (entries
// tuned from a sweep file are verified when that file is given with --config, else skipped with a
// note); `ktune verify FAMILY <problem flags> --set NAME=VALUE ...` checks that one configuration
// (ktune verify softmax --rows 8192 --cols 8192 --set ...). Exit 1 on any mismatch.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <optional>
#include <random>
#include <set>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
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

struct VerifyFlags {
  CommonFlags common;
  MeasureFlags measure;
  uint64_t seed = 0;
};

void add_verify_flags(CLI::App& cmd, VerifyFlags& flags) {
  add_common_flags(cmd, flags.common);
  cmd.add_option("--seed", flags.seed, "input seed (default: a fresh random one)");
  cmd.add_option("--timeout", flags.measure.timeout_s, "seconds before a run counts as hung")
      ->check(at_least(0, true))
      ->capture_default_str();
  cmd.add_option("--rtol", flags.measure.rtol, "relative tolerance (default: per family and dtype, see docs/verification.md)")
      ->check(at_least(0));
  cmd.add_option("--atol", flags.measure.atol, "absolute tolerance (default: per family and dtype)")->check(at_least(0));
  cmd.add_option("--norm-tol", flags.measure.norm_tol, "bound on ||out-ref||/||ref|| (default: per family and dtype)")
      ->check(at_least(0));
}

// Verifies `checks` on this GPU, or every cached best made on it when `checks` is empty and
// `from_cache`; `given` says the checks came with --set (their config is found by its parameters).
// Returns the exit code.
int verify(std::vector<Check> checks, bool given, const VerifyFlags& flags) {
  Session session(session_options(flags.common, flags.measure));
  const DeviceInfo& device = session.device();
  BestConfigCache cache(cache_dir(flags.common) / "best_configs.json");
  if (!given) {
    for (const CacheEntry& e : cache.list()) {
      const CacheKey& k = e.key;
      if (k.gpu_name != device.name || k.cc_major != device.cc_major || k.cc_minor != device.cc_minor) continue;
      checks.push_back({Problem{k.family, k.dims, k.dtype, k.options}, e.params, e.winner_config});
    }
    if (checks.empty()) {
      fmt::print("the cache ({}) has no entries for {}: nothing to verify\n", cache.path().string(), device.name);
      return 1;
    }
  }

  const uint64_t seed = flags.seed ? flags.seed : std::random_device{}();
  fmt::print("device: {}  input seed: {}\n", device.name, seed);
  NvrtcCompiler compiler(cache_dir(flags.common));
  const ToleranceOverride override{flags.measure.rtol, flags.measure.atol, flags.measure.norm_tol};
  int failures = 0, skipped = 0;
  for (const Check& check : checks) {
    const KernelFamily& fam = find_family(check.problem.family);
    check_problem(check.problem);
    std::optional<SweepConfig> named = given ? std::optional(config_for(check.params, flags.common, fam))
                                             : config_named(check.config_name, flags.common, fam);
    if (!named) {  // an entry tuned from a sweep file this run was not given: say so, go on
      ++skipped;
      fmt::print("SKIP {}  {}\n     config '{}' is not built into ktune: pass its file with --config to verify it\n",
                 describe(check.problem), short_params(check.params), check.config_name);
      continue;
    }
    const SweepConfig& config = *named;
    KernelSource source = resolve_kernel_source(config, flags.common.kernel);
    const Bindings params = recorded_params(config, check.params);
    Candidate cand = make_candidate(config, params, fam.context(check.problem, arch_facts(device)),
                                    fam.placeholders(check.problem));
    CandidateRecord rec;
    rec.params = params;
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
      fmt::print("  max abs {:.2e}  max rel {:.2e}  norm {:.2e}  (atol {:g} rtol {:g} norm {:g}{})", rec.error->max_abs,
                 rec.error->max_rel, rec.error->norm_rel, tol.atol, tol.rtol, tol.max_norm_rel,
                 rec.error->floor_norm_rel > 0 ? fmt::format(" + floor {:.2e}", rec.error->floor_norm_rel) : "");
    if (!ok) fmt::print("\n     {}: {}", to_string(rec.disposition), rec.reason);
    fmt::print("\n");
  }
  fmt::print("{} passed, {} failed{}\n", checks.size() - failures - skipped, failures,
             skipped ? fmt::format(", {} skipped", skipped) : "");
  return failures ? 1 : 0;
}

}  // namespace

void setup_verify(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<VerifyFlags>();
  CLI::App* cmd = app.add_subcommand(
      "verify", "check configurations against their family's reference: every cached best on this GPU, or one "
                "given as FAMILY <problem flags> --set NAME=VALUE ...");
  add_verify_flags(*cmd, *opts);
  cmd->callback([cmd, opts, &exit_code] {
    if (!cmd->get_subcommands().empty()) return;  // a family's subcommand did the work
    exit_code = verify({}, /*given=*/false, *opts);
  });

  for (const KernelFamily* family : all_families()) {
    struct FamilyOptions {
      ProblemFlags problem;
      VerifyFlags flags;
      std::vector<std::string> settings;
    };
    auto fopts = std::make_shared<FamilyOptions>();
    CLI::App* sub = cmd->add_subcommand(std::string(family->name()),
                                        "check one configuration of " + std::string(family->name()) + " on one problem");
    add_problem_flags(*sub, fopts->problem, *family, /*required=*/true);
    add_verify_flags(*sub, fopts->flags);
    sub->add_option("--set", fopts->settings, "a parameter value, NAME=VALUE (repeat for each parameter)")->required();
    sub->callback([fopts, family, &exit_code] {
      // Bad input is reported before any GPU work: the settings must name exactly the parameters.
      Bindings params = parse_settings(fopts->settings);
      SweepConfig config = config_for(params, fopts->flags.common, *family);
      Check check{make_problem(*family, fopts->problem), params, config.name};
      check_problem(check.problem);
      make_candidate(config, check.params, family->context(check.problem, arch_facts_offline("sm_90a")),
                     family->placeholders(check.problem));
      exit_code = verify({std::move(check)}, /*given=*/true, fopts->flags);
    });
  }
}

}  // namespace ktune::cli
