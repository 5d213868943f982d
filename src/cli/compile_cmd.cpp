// `ktune compile --arch sm_90a`: NVRTC-compile every candidate of a sweep without a GPU and say
// which compile, which are invalid and why, with ptxas's register, spill and shared-memory
// figures. Exit 1 if any candidate the constraints allow fails to compile. CI runs it.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "tune/compile_candidates.hpp"

namespace ktune::cli {
namespace {

struct Tally {
  int compiled = 0, invalid = 0, failed = 0;
};

Tally report(const std::vector<CandidateRecord>& records, bool verbose) {
  Tally t;
  std::map<std::string, int> invalid_reasons;
  for (const CandidateRecord& r : records) {
    if (r.disposition == Disposition::invalid) {
      ++t.invalid;
      ++invalid_reasons[r.reason];
      if (verbose) fmt::print("  invalid         {:<40} {}\n", short_params(r.params), r.reason);
    } else if (r.disposition == Disposition::compile_failed) {
      ++t.failed;
      fmt::print("  compile_failed  {:<40} {}\n", short_params(r.params), r.reason);
      if (verbose) fmt::print("{}\n", r.compile.log);
    } else {
      ++t.compiled;
      if (verbose)
        fmt::print("  compiled        {:<40} {:>3} regs  {:>4} spill  {:>6} smem  {:>7.0f} ms{}\n",
                   short_params(r.params), r.compile.registers, r.compile.spill_stores + r.compile.spill_loads,
                   r.launch.shared_bytes + r.compile.static_smem, r.compile.compile_ms,
                   r.compile.from_cache ? " (cached)" : "");
    }
  }
  if (!verbose)
    for (const auto& [reason, n] : invalid_reasons) fmt::print("  {:>5} invalid: {}\n", n, reason);
  return t;
}

}  // namespace

void setup_compile(CLI::App& app, int& exit_code) {
  struct Options {
    std::string arch = "sm_90a";
    bool all = false;
    bool verbose = false;
    bool allow_spills = false;
    ProblemFlags problem;
    CommonFlags common;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand("compile", "compile every candidate offline (no GPU needed) and report");
  cmd->add_option("--arch", opts->arch, "target: sm_80, sm_86, sm_89, sm_90a, ...")->capture_default_str();
  cmd->add_flag("--all", opts->all, "every built-in sweep config");
  cmd->add_flag("-v,--verbose", opts->verbose, "one line per candidate");
  cmd->add_flag("--allow-spills", opts->allow_spills, "do not count spilling candidates as invalid");
  add_problem_flags(*cmd, opts->problem, find_family("gemm"), /*required=*/false);  // gemm's flags so far
  add_common_flags(*cmd, opts->common);
  cmd->callback([opts, &exit_code] {
    const ArchFacts arch = arch_facts_offline(opts->arch);
    std::vector<SweepConfig> configs;
    if (opts->all) {
      for (const EmbeddedFile& f : embedded_files()) {
        if (!f.path.starts_with("configs/") || !f.path.ends_with(".json")) continue;
        nlohmann::json peek = nlohmann::json::parse(f.text, nullptr, false);
        const KernelFamily& family = find_family(peek.value("family", "gemm"));
        configs.push_back(parse_sweep_config(f.text, std::string(f.path), family.context_names(),
                                             family.placeholder_names()));
      }
    } else {
      configs = load_configs(opts->common, find_family("gemm"));
    }

    NvrtcCompiler compiler(cache_dir(opts->common));
    Tally total;
    for (const SweepConfig& config : configs) {
      const KernelFamily& family = find_family(config.family);
      const KernelSource source = resolve_kernel_source(config, opts->common.kernel);
      std::vector<Problem> problems;
      if (opts->problem.given()) {
        problems.push_back(make_problem(family, opts->problem));
      } else {
        const auto dtypes = config.dtypes.empty() ? std::vector<std::string>{"fp16"} : config.dtypes;
        const auto layouts = config.layouts.empty() ? std::vector<std::string>{"rr"} : config.layouts;
        const auto dims = config.problems.empty() ? std::vector<Bindings>{{{"M", 4096}, {"N", 4096}, {"K", 4096}}}
                                                  : config.problems;
        for (const Bindings& d : dims)
          for (const auto& dtype : dtypes)
            for (const auto& layout : layouts) problems.push_back({config.family, d, dtype, {{"layout", layout}}});
      }
      for (const Problem& problem : problems) {
        if (opts->problem.given()) {
          check_problem(problem);
        } else {
          // A config's dtype and layout lists multiply out; skip the pairs the family has no such
          // problem for (fp8 takes layout rc only), saying so.
          try {
            check_problem(problem);
          } catch (const ConfigError& e) {
            fmt::print("{} / {}: skipped ({})\n", config.name, describe(problem), e.what());
            continue;
          }
        }
        fmt::print("{} / {} for {}\n", config.name, describe(problem), opts->arch);
        CompileOptions copts{opts->arch, opts->common.jobs, opts->allow_spills, !opts->common.no_progress};
        Tally t = report(compile_candidates(compiler, config, source, family, problem, arch, copts), opts->verbose);
        fmt::print("  {} compiled, {} invalid, {} failed to compile\n", t.compiled, t.invalid, t.failed);
        total.compiled += t.compiled;
        total.invalid += t.invalid;
        total.failed += t.failed;
      }
    }
    fmt::print("total: {} compiled, {} invalid, {} failed to compile (NVRTC {})\n", total.compiled, total.invalid,
               total.failed, NvrtcCompiler::nvrtc_version());
    exit_code = total.failed ? 1 : 0;
  });
}

}  // namespace ktune::cli
