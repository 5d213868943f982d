// `ktune compile --all --arch sm_90a`: NVRTC-compile every candidate of a sweep without a GPU and say
// which compile, which are invalid and why, with ptxas's register, spill and shared-memory
// figures. Exit 1 if any candidate the constraints allow fails to compile. CI runs it. --sample N
// compiles a spread of at most N valid candidates per config and problem instead of all; --quick
// the fewest that touch every config, problem and tunable value; --part I/N a share of the list.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/validators.hpp"
#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "space/spread.hpp"
#include "tune/compile_candidates.hpp"
#include "util/progress.hpp"

namespace ktune::cli {
namespace {

struct Tally {
  int compiled = 0, invalid = 0, failed = 0, unsampled = 0;
  std::map<std::string, int> reasons;  // why candidates were ruled out or failed, for "nothing compiles"
};

Tally report(const SweepCandidates& candidates, bool verbose) {
  Tally t;
  std::map<std::string, int> invalid_reasons;
  for (const RuledOut& r : candidates.ruled_out) {
    t.invalid += static_cast<int>(r.count);
    invalid_reasons[r.reason] += static_cast<int>(r.count);
    t.reasons[r.reason] += static_cast<int>(r.count);
  }
  for (const CandidateRecord& r : candidates.records) {
    if (r.disposition == Disposition::invalid) {
      ++t.invalid;
      ++t.reasons[r.reason];
      if (verbose)
        fmt::print("  invalid         {:<40} {}\n", short_params(r.params), r.reason);
      else
        ++invalid_reasons[r.reason];
    } else if (r.disposition == Disposition::compile_failed) {
      ++t.failed;
      ++t.reasons[r.reason];
      fmt::print("  compile_failed  {:<40} {}\n", short_params(r.params), r.reason);
      if (verbose) fmt::print("{}\n", r.compile.log);
    } else if (!r.compile.ok) {
      ++t.unsampled;  // not_run and never compiled: left out by --sample
    } else {
      ++t.compiled;
      if (verbose)
        fmt::print("  compiled        {:<40} {:>3} regs  {:>4} spill  {:>6} smem  {:>7.0f} ms{}\n",
                   short_params(r.params), r.compile.registers, r.compile.spill_stores + r.compile.spill_loads,
                   r.launch.shared_bytes + r.compile.static_smem, r.compile.compile_ms,
                   r.compile.from_cache ? " (cached)" : "");
    }
  }
  // What the constraints ruled out is counted, with -v too: it is most of a large sweep. Most
  // first: gemm_wgmma's constraints give about twenty reasons a problem.
  std::vector<std::pair<std::string, int>> by_count(invalid_reasons.begin(), invalid_reasons.end());
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [reason, n] : by_count) fmt::print("  {:>6} invalid: {}\n", n, reason);
  return t;
}

// "--part 3/8": the third of eight parts of the (config, problem) list.
struct Part {
  size_t index = 1, count = 1;
};

struct CompileFlags {
  std::string arch = "sm_90a";
  bool verbose = false;
  bool allow_spills = false;
  size_t sample = 0;
  bool quick = false;
  std::string part;
  CommonFlags common;
};

void add_compile_flags(CLI::App& cmd, CompileFlags& flags) {
  cmd.add_option("--arch", flags.arch, "target: sm_80, sm_86, sm_89, sm_90a, ...")->capture_default_str();
  cmd.add_flag("-v,--verbose", flags.verbose, "one line per candidate");
  cmd.add_flag("--allow-spills", flags.allow_spills, "do not count spilling candidates as invalid");
  cmd.add_option("--sample", flags.sample,
                 "compile at most N valid candidates per config and problem, spread so that every value of "
                 "every tunable compiles (0: all)")
      ->check(at_least(0))
      ->capture_default_str();
  cmd.add_flag("--quick", flags.quick,
               "compile the fewest candidates that still touch everything: every value of every tunable once "
               "per config, and at least one candidate per problem (scripts/test.sh)");
  cmd.add_option("--part", flags.part,
                 "I/N: only the I-th of N parts of the config-and-problem list (round robin), so that N "
                 "processes share the work (CI's offline compile)");
  add_common_flags(cmd, flags.common);
}

Part parse_part(const std::string& text) {
  if (text.empty()) return {};
  Part p;
  char slash = 0, rest = 0;
  if (std::sscanf(text.c_str(), "%zu%c%zu%c", &p.index, &slash, &p.count, &rest) != 3 || slash != '/' ||
      p.count == 0 || p.index == 0 || p.index > p.count)
    throw ConfigError(fmt::format("--part {}: say I/N with 1 <= I <= N (--part 2/8)", text));
  return p;
}

// What to compile of one problem's valid candidates, and how the rest are recorded.
void choose_picks(const CompileFlags& flags, CoveredValues& covered, CompileOptions& options) {
  if (flags.quick) {
    options.pick = [&covered](const std::vector<Bindings>& params) { return cover_picks(params, covered); };
    options.left_out = "not in the sample (--quick)";
  } else if (flags.sample > 0) {
    options.pick = [n = flags.sample](const std::vector<Bindings>& params) { return spread_picks(params, n); };
    options.left_out = fmt::format("not in the sample (--sample {})", flags.sample);
  }
}

// "  12345 constraint failed: ...", the most common reasons first.
std::string top_reasons(const std::map<std::string, int>& reasons, size_t count) {
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [reason, n] : reasons) sorted.emplace_back(n, reason);
  std::sort(sorted.rbegin(), sorted.rend());
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < count; ++i) out += fmt::format("\n  {:>7} {}", sorted[i].first, sorted[i].second);
  return out;
}

// Compiles every candidate of each config for each of its problems: `problem` when given, else
// the problems the config lists. Returns the exit code: 1 if any candidate failed to compile; 2
// if nothing compiles at all, or (a whole run, not one --part of it) a config compiles nothing for
// any of its problems: a config or problem that can never run is a mistake to say, not a pass.
int compile_configs(const CompileFlags& flags, const std::vector<SweepConfig>& configs,
                    const std::optional<Problem>& problem) {
  const ArchFacts arch = arch_facts_offline(flags.arch);
  const Part part = parse_part(flags.part);
  NvrtcCompiler compiler(cache_dir(flags.common));

  // The (config, problem) list first, so that one progress line can count it.
  struct Job {
    const SweepConfig* config;
    const KernelFamily* family;
    size_t source;  // into sources
    Problem problem;
  };
  std::vector<KernelSource> sources;
  std::vector<Job> jobs;
  std::map<std::string, bool> has_problems;  // config name -> any problem (of the whole list)
  size_t position = 0;                       // in the whole (config, problem) list, for --part
  for (const SweepConfig& config : configs) {
    if (std::string why = arch_mismatch(config, arch.arch); !why.empty()) {
      fmt::print("{}: {}, not compiled for {}\n", config.name, why, flags.arch);
      continue;
    }
    const KernelFamily& family = find_family(config.family);
    std::vector<Problem> problems;
    if (problem) {
      problems.push_back(*problem);
    } else {
      // A config's dtype and option lists multiply out; the pairs the family has no such problem
      // for (gemm: fp8 takes layout rc only) are skipped, saying so.
      if (config.problems.empty())
        throw ConfigError(config.name + ": no \"problems\" to compile for (give the problem's flags)");
      ConfigProblems made = config_problems(config, config.problems);
      for (const auto& [p, why] : made.skipped) fmt::print("{} / {}: skipped ({})\n", config.name, describe(p), why);
      problems = std::move(made.problems);
    }
    has_problems[config.name] = !problems.empty();
    sources.push_back(resolve_kernel_source(config, flags.common.kernel));
    for (Problem& p : problems)
      if (position++ % part.count == part.index - 1) jobs.push_back({&config, &family, sources.size() - 1, std::move(p)});
  }

  // One line for the whole run when it has several problems (a bar on a terminal, a line every
  // 20 s in a log), instead of one per problem.
  Progress overall("compile", jobs.size(), !flags.common.no_progress && jobs.size() > 1);
  Tally total;
  std::map<std::string, int> compiled_by_config;
  std::map<std::string, CoveredValues> covered;  // --quick: the values each config has compiled so far
  for (const Job& job : jobs) {
    const SweepConfig& config = *job.config;
    fmt::print("{} / {} for {}\n", config.name, describe(job.problem), flags.arch);
    CompileOptions copts;
    copts.arch = flags.arch;
    copts.jobs = flags.common.jobs;
    copts.allow_spills = flags.allow_spills;
    copts.show_progress = !flags.common.no_progress && jobs.size() == 1;
    choose_picks(flags, covered[config.name], copts);
    job.family->check_own_kernels(job.problem, flags.arch, compiler);
    Tally t = report(compile_candidates(compiler, config, sources[job.source], *job.family, job.problem, arch, copts),
                     flags.verbose);
    fmt::print("  {} compiled, {} invalid, {} failed to compile{}\n", t.compiled, t.invalid, t.failed,
               t.unsampled ? fmt::format(", {} valid left out of the sample", t.unsampled) : "");
    std::fflush(stdout);
    total.compiled += t.compiled;
    total.invalid += t.invalid;
    total.failed += t.failed;
    total.unsampled += t.unsampled;
    for (const auto& [reason, n] : t.reasons) total.reasons[reason] += n;
    compiled_by_config[config.name] += t.compiled;
    overall.step(config.name);
  }
  overall.finish();
  std::vector<std::string> barren;  // configs of which nothing compiled, over all their problems
  if (part.count == 1 && !problem)
    for (const auto& [name, any] : has_problems)
      if (any && compiled_by_config[name] == 0) barren.push_back(name);
  fmt::print("total: {} compiled, {} invalid, {} failed to compile{} (NVRTC {})\n", total.compiled, total.invalid,
             total.failed,
             total.unsampled ? fmt::format(", {} valid left out of the sample", total.unsampled) : "",
             NvrtcCompiler::nvrtc_version());
  if (total.failed) return 1;
  if (total.compiled == 0) {
    fmt::print(stderr, "ktune: nothing compiles: every candidate was ruled out{}\n", top_reasons(total.reasons, 3));
    return 2;
  }
  for (const std::string& name : barren)
    fmt::print(stderr, "ktune: {}: no candidate compiles for any of its problems for {}\n", name, flags.arch);
  return barren.empty() ? 0 : 2;
}

}  // namespace

// `ktune compile --all`: every embedded config, for the problems each lists. `ktune compile
// FAMILY [problem flags] [--config F]`: one family's configs (or F), for the problem given or
// else the configs' own problems.
void setup_compile(CLI::App& app, int& exit_code) {
  struct AllOptions {
    bool all = false;
    CompileFlags flags;
  };
  auto opts = std::make_shared<AllOptions>();
  CLI::App* cmd = app.add_subcommand("compile", "compile every candidate offline (no GPU needed) and report");
  cmd->add_flag("--all", opts->all, "every built-in sweep config of every family");
  add_compile_flags(*cmd, opts->flags);
  cmd->callback([cmd, opts, &exit_code] {
    if (!cmd->get_subcommands().empty()) return;  // a family's subcommand did the work
    if (!opts->all) throw ConfigError("ktune compile: say --all, or name a family (ktune compile gemm --m 4096)");
    std::vector<SweepConfig> configs;
    for (const EmbeddedFile& f : embedded_files()) {
      if (!f.path.starts_with("configs/") || !f.path.ends_with(".json")) continue;
      nlohmann::json peek = nlohmann::json::parse(f.text, nullptr, false);
      const KernelFamily& family = find_family(peek.value("family", ""));
      configs.push_back(
          parse_family_config(family, f.text, std::string(f.path)));
    }
    // And those of the families declared on --family-path.
    for (const KernelFamily* family : all_families())
      if (!family->declaration_file().empty())
        for (std::string_view path : family->default_configs()) configs.push_back(embedded_config(path, *family));
    exit_code = compile_configs(opts->flags, configs, std::nullopt);
  });

  for (const KernelFamily* family : all_families()) {
    auto problem_flags = std::make_shared<ProblemFlags>();
    CLI::App* sub = cmd->add_subcommand(std::string(family->name()), "compile " + std::string(family->name()) +
                                                                        "'s sweeps, for one problem or their own");
    add_problem_flags(*sub, *problem_flags, *family, /*required=*/false);
    // The family's compile flags write the same variables as compile's own, so they may come
    // before the family's name or after it (`ktune compile --arch sm_80 add` targets sm_80).
    add_compile_flags(*sub, opts->flags);
    sub->callback([opts, problem_flags, family, &exit_code] {
      std::optional<Problem> problem;
      if (problem_flags->given()) {
        problem = make_problem(*family, *problem_flags);
        check_problem(*problem);
      }
      exit_code = compile_configs(opts->flags, load_configs(opts->flags.common, *family), problem);
    });
  }
}

}  // namespace ktune::cli
