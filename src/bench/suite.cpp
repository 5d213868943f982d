// Benchmark suites: parsing suites/*.json and the markdown summary of a bench run; see suite.hpp.
#include "bench/suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "families/family.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune {
namespace {

using nlohmann::json;

std::string required_string(const json& problem, const char* key, const std::string& where) {
  if (!problem.contains(key)) throw ConfigError(fmt::format("{}: \"{}\" is missing", where, key));
  if (!problem.at(key).is_string()) throw ConfigError(fmt::format("{}: \"{}\" must be a string", where, key));
  return problem.at(key).get<std::string>();
}

SuiteProblem parse_problem(const json& entry, const std::string& where) {
  if (!entry.is_object()) throw ConfigError(where + ": a problem must be a JSON object");
  SuiteProblem out;
  Problem& p = out.problem;
  p.family = required_string(entry, "family", where);
  p.dtype = required_string(entry, "dtype", where);
  if (entry.contains("config")) {
    if (!entry.at("config").is_string() || entry.at("config").get<std::string>().empty())
      throw ConfigError(where + ": \"config\" must be a config name or a .json path");
    out.config = entry.at("config").get<std::string>();
  }
  try {
    // The family's schema says what the other keys may be: its dimensions (integers) and its
    // options (strings); check_problem names anything else, so a typo ("KK") never becomes a
    // silent extra dimension of the problem and of its cache key.
    const ProblemSchema schema = find_family(p.family).schema();
    for (const auto& [key, value] : entry.items()) {
      if (key == "family" || key == "dtype" || key == "config") continue;
      const bool is_option = std::any_of(schema.options.begin(), schema.options.end(),
                                         [&](const OptionSpec& o) { return o.name == key; });
      if (is_option) {
        if (!value.is_string()) throw ConfigError(fmt::format("\"{}\" must be a string", key));
        p.options[key] = value.get<std::string>();
      } else {
        if (!value.is_number_integer()) throw ConfigError(fmt::format("\"{}\" must be an integer", key));
        p.dims[key] = value.get<int64_t>();
      }
    }
    complete_options(p);
    check_problem(p);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", where, e.what()));
  }
  return out;
}

std::string params_text(const Bindings& params) {
  std::string out;
  for (const auto& [name, value] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

const CandidateRecord* find_role(const ProblemResult& r, Role role) {
  for (const CandidateRecord& rec : r.records)
    if (rec.role == role) return &rec;
  return nullptr;
}

bool timed(const CandidateRecord* rec) {
  return rec && rec->disposition == Disposition::passed && rec->time && rec->time->median > 0;
}

// A markdown table cell: no line breaks, no column separators.
std::string cell(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace

Suite parse_suite(std::string_view text, const std::string& origin) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ConfigError(fmt::format("{}: {}", origin, e.what()));
  }
  if (!root.is_object()) throw ConfigError(origin + ": a suite must be a JSON object");
  for (const auto& [key, value] : root.items())
    if (key != "name" && key != "description" && key != "problems")
      throw ConfigError(fmt::format("{}: unknown key \"{}\" (a suite has name, description, problems)", origin, key));

  Suite suite;
  suite.name = std::filesystem::path(origin).stem().string();
  for (const char* key : {"name", "description"}) {
    if (!root.contains(key)) continue;
    if (!root.at(key).is_string()) throw ConfigError(fmt::format("{}: \"{}\" must be a string", origin, key));
    (std::string_view(key) == "name" ? suite.name : suite.description) = root.at(key).get<std::string>();
  }
  if (!root.contains("problems") || !root.at("problems").is_array() || root.at("problems").empty())
    throw ConfigError(origin + ": \"problems\" must be a non-empty array");

  std::set<std::string> seen;
  const json& problems = root.at("problems");
  for (size_t i = 0; i < problems.size(); ++i) {
    const std::string where = fmt::format("{}: problems[{}]", origin, i);
    SuiteProblem sp = parse_problem(problems[i], where);
    if (!seen.insert(describe(sp.problem) + " " + sp.config).second)
      throw ConfigError(fmt::format("{}: {} is listed twice", where, describe(sp.problem)));
    suite.problems.push_back(std::move(sp));
  }
  return suite;
}

Suite load_suite(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
  Suite suite = parse_suite(text, file.string());
  suite.base_dir = file.parent_path();
  return suite;
}

std::string bench_markdown(const Suite& suite, const RunInfo& info, const std::vector<ProblemResult>& results) {
  const DeviceInfo& d = info.device;
  std::string md = fmt::format("## ktune bench: {}\n\n", suite.name);
  if (!suite.description.empty()) md += suite.description + "\n\n";
  md += fmt::format("{} ({}, {} SMs, driver {}), NVRTC {}, ktune {}, started {}  \n`{}`\n\n", d.name, d.arch(),
                    d.sm_count, d.driver_version, info.nvrtc_version, info.ktune_version, info.started_at,
                    info.command);
  // The rate is each family's own: TFLOPS for compute-bound families, GB/s for memory-bound ones.
  md += "| problem | baseline | ktune ms | baseline ms | ktune rate | baseline rate | vs baseline (>1 faster) | "
        "of copy roof | samples | GPU | configuration |\n";
  md += "|---|---|---:|---:|---:|---:|---:|---:|---|---|---|\n";

  double log_sum = 0;
  int compared = 0;
  for (const ProblemResult& r : results) {
    const CandidateRecord* best = find_role(r, Role::candidate);
    const CandidateRecord* ref = find_role(r, Role::baseline);
    // A memory-bound problem's copy roof, timed beside (or as) its baseline: ktune's share of it.
    const CandidateRecord* copy = nullptr;
    for (const CandidateRecord& rec : r.records)
      if (rec.is_baseline() && rec.source == "copy") copy = &rec;
    auto ms = [](const CandidateRecord* rec) { return timed(rec) ? fmt::format("{:.4f}", rec->time->median) : "—"; };
    auto rate = [&](const CandidateRecord* rec) {
      return timed(rec) ? rate_text(r.problem, rec->tflops, rec->gbps) : "—";
    };
    auto n = [](const CandidateRecord* rec) { return rec && rec->time ? std::to_string(rec->time->n) : "0"; };
    std::string ratio = "—";
    if (timed(best) && timed(ref)) {
      const double x = ref->time->median / best->time->median;
      ratio = fmt::format("{:.3f}×", x);
      log_sum += std::log(x);
      ++compared;
    }
    std::string config = "no configuration";
    if (best) {
      config = "`" + params_text(best->params) + "`";
      if (best->disposition != Disposition::passed)
        config = fmt::format("**{}**: {} ({})", to_string(best->disposition), cell(best->reason), config);
    }
    const std::string clocks = timed(best) ? best->clocks_text() : "";
    const std::string of_copy =
        timed(best) && timed(copy) ? fmt::format("{:.1f}%", 100 * copy->time->median / best->time->median) : "—";
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} | {} |\n", describe(r.problem),
                      ref ? provider_name(ref->source) : "—", ms(best), ms(ref),
                      rate(best), rate(ref), ratio, of_copy, n(best), n(ref), clocks.empty() ? "—" : clocks, config);
  }
  if (compared > 0)
    md += fmt::format("\nGeometric mean of ktune's speed relative to the baseline: **{:.3f}×** over {} problem{}.\n",
                      std::exp(log_sum / compared), compared, compared == 1 ? "" : "s");
  md += "\nTimes are medians of samples of the best cached configuration and of the baseline, taken alternately "
        "(sample by sample, in rounds) in one worker, each sample after an L2 flush. GPU: SM clock and power "
        "after the samples (NVML); THROTTLED when the clocks were held down.\n";
  return md;
}

}  // namespace ktune
