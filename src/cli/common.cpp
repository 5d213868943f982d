#include "cli/common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include "cli/validators.hpp"
#include "compile/embedded.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "families/family.hpp"
#include "store/rejections.hpp"
#include "scale/shard.hpp"
#include "util/fs.hpp"
#include "util/utc_time.hpp"

namespace ktune::cli {
namespace {

std::vector<std::string> g_argv;

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:") ==
                        std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A dimension: a whole number of at least 1, said plainly (CLI::PositiveNumber's message spells
// out the largest double).
const CLI::Validator kAtLeastOne(
    [](std::string& text) -> std::string {
      std::size_t end = 0;
      long long v = 0;
      try {
        v = std::stoll(text, &end);
      } catch (const std::exception&) {
        return "must be a whole number >= 1 (got " + text + ")";
      }
      if (end != text.size() || v < 1) return "must be a whole number >= 1 (got " + text + ")";
      return "";
    },
    "POSITIVE");

// A schema name as a flag: lower case, words joined by hyphens ("head_dim" -> --head-dim).
std::string flag_name(std::string name) {
  for (char& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "--" + name;
}

}  // namespace

void set_argv(int argc, char** argv) { g_argv.assign(argv, argv + argc); }
const std::vector<std::string>& argv() { return g_argv; }

bool ProblemFlags::given() const {
  return std::any_of(dims.begin(), dims.end(), [](const auto& d) { return d.second != 0; });
}

void add_problem_flags(CLI::App& app, ProblemFlags& f, const KernelFamily& family, bool required) {
  const ProblemSchema schema = family.schema();
  for (const DimSpec& d : schema.dims) {
    const std::string flag = flag_name(d.name);
    const std::string help = d.defaults_to.empty() ? d.help : fmt::format("{} (default: {})", d.help, d.defaults_to);
    auto* option = app.add_option(flag, f.dims[d.name], help)->check(kAtLeastOne);
    if (required && d.defaults_to.empty()) option->required();
  }
  std::string dtypes;
  for (const std::string& t : schema.dtypes) dtypes += (dtypes.empty() ? "" : " | ") + t;
  app.add_option("--dtype", f.dtype,
                 fmt::format("{} (default {}){}", dtypes, schema.dtypes.front(),
                             schema.dtype_help.empty() ? "" : "; " + schema.dtype_help))
      ->check(CLI::IsMember(schema.dtypes));
  for (const OptionSpec& o : schema.options) {
    if (o.choices == std::vector<std::string>{"no", "yes"}) {
      // A yes/no option is a switch: --causal says yes, leaving it out the default.
      app.add_flag_callback(
          flag_name(o.name), [&f, name = o.name] { f.options[name] = "yes"; },
          fmt::format("{} (default {})", o.help, o.default_value));
      continue;
    }
    std::string choices;
    for (const std::string& c : o.choices) choices += (choices.empty() ? "" : " | ") + c;
    app.add_option(flag_name(o.name), f.options[o.name], fmt::format("{}: {} (default {})", o.help, choices, o.default_value))
        ->check(CLI::IsMember(o.choices));
  }
}

Problem make_problem(const KernelFamily& family, const ProblemFlags& f) {
  const ProblemSchema schema = family.schema();
  Problem p;
  p.family = std::string(family.name());
  for (const DimSpec& d : schema.dims) {
    auto given = f.dims.find(d.name);
    if (given != f.dims.end() && given->second != 0) p.dims[d.name] = given->second;
  }
  p.dtype = f.dtype.empty() ? schema.dtypes.front() : f.dtype;
  for (const auto& [name, value] : f.options)
    if (!value.empty()) p.options[name] = value;
  complete_options(p);
  return p;
}

void add_common_flags(CLI::App& app, CommonFlags& f) {
  app.add_option("--config", f.config, "sweep config JSON (default: the built-in one)");
  app.add_option("--kernel", f.kernel, "kernel source to use instead of the config's");
  app.add_option("--cache-dir", f.cache_dir, "cache folder (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  app.add_option("-j,--jobs", f.jobs, "compile threads (default: all cores)")->check(at_least(1));
  app.add_flag("--no-progress", f.no_progress, "no progress bar");
}

std::filesystem::path cache_dir(const CommonFlags& f) {
  return f.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(f.cache_dir);
}

SweepConfig embedded_config(std::string_view path, const KernelFamily& family) {
  // A declared family's configs are files its declaration names (absolute paths).
  if (std::filesystem::path(path).is_absolute()) return load_family_config(family, std::filesystem::path(path));
  auto text = find_embedded(path);
  if (!text) throw Error(fmt::format("{} is not built into this ktune", path));
  return parse_family_config(family, *text, std::string(path));
}

std::vector<SweepConfig> load_configs(const CommonFlags& f, const KernelFamily& family) {
  if (!f.config.empty()) {
    if (!std::filesystem::exists(f.config)) throw ConfigError(fmt::format("--config {}: no such file", f.config));
    SweepConfig config = load_family_config(family, f.config);
    if (config.family != family.name())
      throw ConfigError(fmt::format("{}: family '{}', but this command tunes '{}'", f.config, config.family,
                                    family.name()));
    return {config};
  }
  std::vector<SweepConfig> configs;
  for (std::string_view path : family.default_configs()) configs.push_back(embedded_config(path, family));
  return configs;
}


void add_measure_flags(CLI::App& app, MeasureFlags& f) {
  app.add_flag("--retune", f.retune, "tune even if the cache has an answer");
  app.add_option("--out", f.out, "folder for the results JSON and CSV")->capture_default_str();
  app.add_option("--top", f.top, "rows in the printed table")->check(at_least(1))->capture_default_str();
  app.add_option("--timeout", f.timeout_s, "seconds before a candidate counts as hung")->check(at_least(0, true))->capture_default_str();
  app.add_option("--warmup-ms", f.warmup_ms, "warmup time per candidate")->check(at_least(0))->capture_default_str();
  app.add_option("--min-time-ms", f.min_time_ms, "least measured time per candidate")->check(at_least(0))->capture_default_str();
  app.add_option("--max-time-ms", f.max_time_ms, "timing budget per candidate")->check(at_least(0, true))->capture_default_str();
  app.add_option("--noise", f.noise, "stop sampling at this relative error of the median")->check(at_least(0, true))->capture_default_str();
  app.add_option("--min-samples", f.min_samples, "fewest timed samples per candidate")->check(at_least(1))->capture_default_str();
  app.add_option("--prune", f.prune, "stop timing a candidate once it is this many times slower than the best")
      ->check(at_least(1, true))
      ->capture_default_str();
  app.add_flag("--allow-spills", f.allow_spills, "run candidates whose registers spill");
  app.add_option("--timer", f.timing.timer,
                 "events: CUDA events around each sample; cupti: the GPU's own kernel start/end stamps (as ncu)")
      ->check(CLI::IsMember({"events", "cupti"}))
      ->capture_default_str();
  app.add_option("--l2-flush", f.timing.l2_flush, "write or read 2x L2 before each sample")
      ->check(CLI::IsMember({"write", "read"}))
      ->capture_default_str();
  app.add_flag("--hold,!--no-hold", f.timing.hold,
               "hold the stream until a batch of samples is enqueued, so launch overhead never counts")
      ->capture_default_str();
  app.add_option("--cooldown", f.timing.cooldown_ms,
                 "idle this many ms before every sample: isolated launches at burst clocks, as a profiler measures")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  app.add_option("--finalists", f.finalists,
                 "candidates within 3% of the best re-measured against the baseline before choosing")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_flag("--exhaustive", f.exhaustive,
               "compile and time every valid candidate (default: the config's estimate orders them and the first "
               "--max-candidates run)");
  app.add_option("--max-candidates", f.max_candidates,
                 "candidates compiled and timed per problem, in the search's order (default: 48)")
      ->check(at_least(1));
  app.add_option("--budget", f.budget_s,
                 "seconds of compile and timing per problem after which no new candidate starts (default: none)")
      ->check(at_least(0, true));
  app.add_option("--rtol", f.rtol, "relative tolerance (default: per dtype, see docs/verification.md)")->check(at_least(0));
  app.add_option("--atol", f.atol, "absolute tolerance (default: per dtype)")->check(at_least(0));
  app.add_option("--norm-tol", f.norm_tol, "bound on ||out-ref||/||ref|| (default: per dtype)")->check(at_least(0));
}

TuneOptions tune_options(const CommonFlags& c, const MeasureFlags& m) {
  if (m.min_time_ms > m.max_time_ms)
    throw ConfigError(fmt::format("--min-time-ms {:g} is above --max-time-ms {:g}", m.min_time_ms, m.max_time_ms));
  TuneOptions o;
  o.rule.min_samples = m.min_samples;
  o.rule.max_time_ms = m.max_time_ms;
  o.rule.min_time_ms = std::min(m.min_time_ms, m.max_time_ms);
  o.rule.noise_target = m.noise;
  o.rule.prune_factor = m.prune;
  o.rule.max_samples = std::max(o.rule.max_samples, m.min_samples);
  validate(o.rule);
  o.warmup_ms = m.warmup_ms;
  o.retune = m.retune;
  o.allow_spills = m.allow_spills;
  o.jobs = c.jobs;
  o.show_progress = !c.no_progress;
  o.tolerance = {m.rtol, m.atol, m.norm_tol};
  o.finalists = m.finalists;
  o.search.exhaustive = m.exhaustive;
  if (m.max_candidates > 0) o.search.max_candidates = static_cast<size_t>(m.max_candidates);
  o.search.budget_s = m.budget_s;
  if (!m.candidate_shard.empty()) o.search.shard = parse_shard(m.candidate_shard);
  return o;
}

SessionOptions session_options(const CommonFlags& c, const MeasureFlags& m) {
  SessionOptions s;
  s.compile_cache_dir = cache_dir(c);
  s.candidate_timeout = std::chrono::milliseconds(static_cast<int64_t>(m.timeout_s * 1000));
  s.timing = m.timing;
  return s;
}

RunInfo make_run_info(const DeviceInfo& device) {
  RunInfo info;
  info.argv = g_argv;
  info.ktune_version = KTUNE_VERSION;
  info.started_at = utc_iso_now();
  info.device = device;
  info.nvrtc_version = NvrtcCompiler::nvrtc_version();
  std::string command = "ktune";
  for (size_t i = 1; i < g_argv.size(); ++i) command += " " + shell_quote(g_argv[i]);
  info.command = command;
  return info;
}

std::string results_stem(const std::string& what) { return what + "-" + utc_compact_now(); }

std::string short_params(const Bindings& params) {
  // Each name by its initials (ROWS_PER_BLOCK -> RPB), except where two names share them
  // (PIECES and PREFETCH): those stay whole, so the table never shows the same key twice.
  std::map<std::string, std::string> abbrevs;
  std::map<std::string, int> uses;
  for (const auto& [name, value] : params) {
    std::string abbrev;
    bool start = true;
    for (char c : name) {
      if (start && c != '_') abbrev += c;
      start = c == '_';
    }
    abbrevs[name] = abbrev;
    ++uses[abbrev];
  }
  std::string out;
  for (const auto& [name, value] : params) {
    const std::string& abbrev = abbrevs[name];
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", uses[abbrev] > 1 ? name : abbrev, value);
  }
  return out;
}

void print_tune_result(const TuneResult& r, int top) {
  const auto& records = r.result.records;
  std::map<std::string, int> counts;
  std::vector<size_t> passed;
  for (const RuledOut& ruled : r.result.ruled_out) counts[to_string(Disposition::invalid)] += static_cast<int>(ruled.count);
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].is_baseline()) continue;
    counts[to_string(records[i].disposition)]++;
    if (records[i].disposition == Disposition::passed && records[i].time) passed.push_back(i);
  }
  // The final's records first (the winner is the fastest of them), then the sweep-only ones.
  std::sort(passed.begin(), passed.end(), [&](size_t a, size_t b) {
    const bool fa = !records[a].rounds.empty(), fb = !records[b].rounds.empty();
    if (fa != fb) return fa;
    return records[a].time->median < records[b].time->median;
  });
  bool any_final = false;
  for (size_t i : passed) any_final |= !records[i].rounds.empty();

  // Labels are shown whole: two candidates of one family often differ only in the last parameter.
  std::set<std::string> configs;
  for (size_t i : passed) configs.insert(records[i].config_name);
  std::vector<std::pair<std::string, const CandidateRecord*>> rows;
  for (size_t i = 0; i < passed.size() && static_cast<int>(i) < top; ++i) {
    const CandidateRecord& rec = records[passed[i]];
    rows.emplace_back((configs.size() > 1 ? rec.config_name + " " : "") + short_params(rec.params), &rec);
  }
  std::string baseline;  // the first baseline's provider, which the ratios are against: "cuBLAS"
  for (const auto& rec : records)
    if (rec.is_baseline()) {
      rows.emplace_back(rec.kernel_name, &rec);
      if (baseline.empty()) baseline = provider_name(rec.source);
    }
  if (baseline.empty()) baseline = "baseline";
  size_t width = 6;
  for (const auto& [label, rec] : rows) width = std::max(width, label.size());

  fmt::print("\n{}\n", describe(r.result.problem));
  const Problem& problem = r.result.problem;
  fmt::print("{:>4}  {:<{}} {:>10} {:>8} {:>9} {:>9} {:>9}\n", "#", "config", width, "median ms", rate_unit(problem), "max err",
             "norm err", "vs " + baseline);
  int rank = 0;
  for (const auto& [label, rec] : rows)
    fmt::print("{:>4}  {:<{}} {:>10.4f} {:>8.1f} {:>9.2e} {:>9.2e} {:>9}{}\n",
               rec->is_baseline() ? std::string("ref") : std::to_string(++rank), label, width,
               rec->time ? rec->time->median : 0.0, rate_value(problem, rec->tflops, rec->gbps),
               rec->error ? rec->error->max_abs : 0.0,
               rec->error ? rec->error->norm_rel : 0.0, ratio_text(rec->ratio_vs_baseline),
               rec->pruned ? " (pruned)" : !rec->rounds.empty() && !rec->is_baseline() ? " final" : "");
  if (any_final)
    fmt::print("final: re-measured with {0} in {1} interleaved rounds ({0}'s row is this measurement); the "
               "others took one sweep pass, their ratios against {0} {2}\n",
               baseline, records[passed.front()].rounds.size(),
               r.result.sweep_baseline
                   ? fmt::format("timed again after that pass ({:.4f} ms; {:.4f} ms before the search)",
                                 r.result.sweep_baseline->after_ms, r.result.sweep_baseline->before_ms)
                                   : std::string("timed before the search"));

  std::string summary;
  for (const auto& [name, n] : counts) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", n, name);
  fmt::print("candidates: {}  (search {:.1f} s, its compiles overlapped in the first {:.1f} s)\n", summary,
             r.run_seconds, r.compile_seconds);
  if (!r.search.empty()) fmt::print("search: {}\n", r.search);
  if (passed.empty()) print_rejections(r.result);
}

void print_rejections(const ProblemResult& r) {
  const std::vector<Rejection> why = top_rejections(r, 5);
  if (why.empty()) return;
  fmt::print("no candidate passed; why, most common first:\n");
  for (const Rejection& g : why) fmt::print("  {:>7} {}: {}\n", g.count, g.disposition, g.example);
}

}  // namespace ktune::cli
