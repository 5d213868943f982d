// Result files (.json + .csv) of a run; see results.hpp for the formats.
#include "store/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "store/record_json.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/gzip_file.hpp"
#include "util/table_text.hpp"

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Shortest text that reads back to the same double.
std::string number(double v) { return fmt::format("{}", v); }

// M, N, K first because that is how everyone writes a GEMM shape; anything else by name.
// `first` in its order, then the other names some problem has, sorted.
template <typename NamesOf>
std::vector<std::string> ordered(const std::vector<ProblemResult>& results, const std::vector<std::string>& first,
                                 NamesOf names_of) {
  std::set<std::string> rest;
  for (const auto& r : results)
    for (const std::string& name : names_of(r.problem))
      if (std::find(first.begin(), first.end(), name) == first.end()) rest.insert(name);
  std::vector<std::string> out = first;
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// One fixed column: its name and how to fill it from a record ("" = empty cell).
struct Column {
  const char* name;
  std::function<std::string(const CandidateRecord&)> cell;
};

std::vector<Column> record_columns() {
  auto timed = [](double TimeStats::*field) {
    return [field](const CandidateRecord& r) { return r.time ? number((*r.time).*field) : ""; };
  };
  auto checked = [](double ErrorStats::*field) {
    return [field](const CandidateRecord& r) { return r.error ? number((*r.error).*field) : ""; };
  };
  // registers < 0: never compiled by us (cuBLAS, or a failed compile), so no resource numbers.
  auto compiled = [](int CompileInfo::*field) {
    return [field](const CandidateRecord& r) {
      return r.compile.registers >= 0 ? std::to_string(r.compile.*field) : "";
    };
  };
  // Throughputs and ratios only mean something for a timed record.
  auto if_timed = [](double CandidateRecord::*field) {
    return [field](const CandidateRecord& r) { return r.time ? number(r.*field) : ""; };
  };
  return {
      {"registers", compiled(&CompileInfo::registers)},
      {"spill_stores", compiled(&CompileInfo::spill_stores)},
      {"spill_loads", compiled(&CompileInfo::spill_loads)},
      {"median_ms", timed(&TimeStats::median)},
      {"mean_ms", timed(&TimeStats::mean)},
      {"min_ms", timed(&TimeStats::min)},
      {"max_ms", timed(&TimeStats::max)},
      {"stdev_ms", timed(&TimeStats::stdev)},
      {"p20_ms", timed(&TimeStats::p20)},
      {"p80_ms", timed(&TimeStats::p80)},
      {"n", [](const CandidateRecord& r) { return r.time ? std::to_string(r.time->n) : ""; }},
      {"pruned", [](const CandidateRecord& r) { return std::string(r.pruned ? "true" : "false"); }},
      {"tflops", if_timed(&CandidateRecord::tflops)},
      {"gbps", if_timed(&CandidateRecord::gbps)},
      {"max_abs_err", checked(&ErrorStats::max_abs)},
      {"max_rel_err", checked(&ErrorStats::max_rel)},
      {"norm_rel_err", checked(&ErrorStats::norm_rel)},
      {"ratio_vs_baseline", if_timed(&CandidateRecord::ratio_vs_baseline)},
  };
}

void append_row(std::string& out, const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(cells[i]);
  }
  out += '\n';
}

}  // namespace

bool ruled_out_by_constraint(const CandidateRecord& rec) {
  return rec.disposition == Disposition::invalid && rec.reason.rfind(kConstraintFailed, 0) == 0;
}

std::vector<RuledOut> ProblemResult::ruled_out_counts() const {
  std::map<std::pair<std::string, std::string>, int64_t> counts;
  for (const RuledOut& r : ruled_out) counts[{r.config_name, r.reason}] += r.count;
  for (const CandidateRecord& rec : records)
    if (ruled_out_by_constraint(rec)) ++counts[{rec.config_name, rec.reason}];
  std::vector<RuledOut> out;
  for (const auto& [key, count] : counts) out.push_back({key.first, key.second, count});
  return out;
}

json results_to_json(const RunInfo& info, const std::vector<ProblemResult>& results) {
  json problems = json::array();
  for (const auto& r : results) {
    json records = json::array();
    for (const CandidateRecord& rec : r.records)
      if (!ruled_out_by_constraint(rec)) records.push_back(rec);
    json p{{"problem", r.problem}, {"cost", r.cost}, {"records", std::move(records)}};
    if (const std::vector<RuledOut> counts = r.ruled_out_counts(); !counts.empty()) {
      json& out = p["ruled_out"] = json::array();
      for (const RuledOut& c : counts) out.push_back({{"config", c.config_name}, {"reason", c.reason}, {"count", c.count}});
    }
    if (r.sweep_baseline)
      p["sweep_baseline"] = {{"before_ms", r.sweep_baseline->before_ms}, {"after_ms", r.sweep_baseline->after_ms}};
    problems.push_back(std::move(p));
  }
  return json{{"schema_version", kResultsSchemaVersion},
              {"meta",
               {{"argv", info.argv},
                {"command", info.command},
                {"ktune_version", info.ktune_version},
                {"started_at", info.started_at},
                {"nvrtc_version", info.nvrtc_version}}},
              {"device", info.device},
              {"problems", std::move(problems)}};
}

std::string results_to_csv(const std::vector<ProblemResult>& results, const ProblemColumns& columns) {
  const std::vector<std::string> dims = ordered(results, columns.dims, [](const Problem& p) {
    std::vector<std::string> names;
    for (const auto& [name, value] : p.dims) names.push_back(name);
    return names;
  });
  const std::vector<std::string> options = ordered(results, columns.options, [](const Problem& p) {
    std::vector<std::string> names;
    for (const auto& [name, value] : p.options) names.push_back(name);
    return names;
  });
  const std::vector<Column> tail = record_columns();

  std::set<std::string> taken(dims.begin(), dims.end());
  taken.insert(options.begin(), options.end());
  for (const char* name : {"family", "dtype", "source", "config_name", "kernel_name", "disposition", "reason"})
    taken.insert(name);
  for (const auto& c : tail) taken.insert(c.name);

  std::set<std::string> params;
  for (const auto& r : results)
    for (const auto& rec : r.records)
      if (!ruled_out_by_constraint(rec))
        for (const auto& [name, value] : rec.params) params.insert(name);

  std::vector<std::string> header{"family"};
  header.insert(header.end(), dims.begin(), dims.end());
  header.push_back("dtype");
  header.insert(header.end(), options.begin(), options.end());
  header.insert(header.end(), {"source", "config_name"});
  for (const auto& p : params) header.push_back(taken.count(p) ? "param_" + p : p);
  header.insert(header.end(), {"kernel_name", "disposition", "reason"});
  for (const auto& c : tail) header.push_back(c.name);

  std::string out;
  append_row(out, header);
  for (const auto& r : results) {
    for (const auto& rec : r.records) {
      if (ruled_out_by_constraint(rec)) continue;
      std::vector<std::string> row{r.problem.family};
      for (const auto& d : dims) {
        auto it = r.problem.dims.find(d);
        row.push_back(it == r.problem.dims.end() ? "" : std::to_string(it->second));
      }
      row.push_back(r.problem.dtype);
      for (const auto& o : options) row.push_back(r.problem.option(o));
      row.insert(row.end(), {rec.source, rec.config_name});
      for (const auto& p : params) {
        auto it = rec.params.find(p);
        row.push_back(it == rec.params.end() ? "" : std::to_string(it->second));
      }
      row.insert(row.end(), {rec.kernel_name, to_string(rec.disposition), rec.reason});
      for (const auto& c : tail) row.push_back(c.cell(rec));
      append_row(out, row);
    }
  }
  return out;
}

std::pair<fs::path, fs::path> write_results(const fs::path& out_dir, const std::string& stem,
                                            const RunInfo& info,
                                            const std::vector<ProblemResult>& results,
                                            const ProblemColumns& columns) {
  const fs::path json_path = out_dir / (stem + ".json");
  const fs::path csv_path = out_dir / (stem + ".csv");
  write_file_atomic(json_path, results_to_json(info, results).dump(2) + "\n");
  write_file_atomic(csv_path, results_to_csv(results, columns));
  return {json_path, csv_path};
}

std::optional<size_t> recorded_winner(const ProblemResult& r) {
  std::optional<size_t> best;
  // Finalists first, then the lower median.
  auto rank = [&](size_t i) { return std::pair(r.records[i].rounds.empty(), r.records[i].time->median); };
  for (size_t i = 0; i < r.records.size(); ++i) {
    const CandidateRecord& rec = r.records[i];
    if (rec.is_baseline() || rec.disposition != Disposition::passed || rec.params.empty() || !rec.time) continue;
    if (!best || rank(i) < rank(*best)) best = i;
  }
  return best;
}

std::string results_stem(const fs::path& path) {
  fs::path name = path.filename();
  if (name.extension() == ".gz") name = name.stem();
  if (name.extension() == ".json") name = name.stem();
  return name.string();
}

std::vector<ProblemResult> read_results(const fs::path& path, RunInfo* info_out) {
  std::string text;
  try {
    text = read_file_inflated(path);
  } catch (const Error& e) {
    throw ConfigError(e.what());
  }
  try {
    const json root = json::parse(text);
    if (!root.is_object() || !root.contains("schema_version") || !root.contains("problems"))
      throw Error("not a ktune results file (no \"schema_version\" and \"problems\": the .json that ktune "
                  "gemm, sweep or bench writes)");
    const auto version = root.at("schema_version").get<int>();
    if (version != kResultsSchemaVersion)
      throw Error(fmt::format("schema_version {} is not {}, the one this ktune reads", version,
                              kResultsSchemaVersion));
    if (info_out) {
      const json& meta = root.at("meta");
      RunInfo info;
      info.argv = meta.value("argv", std::vector<std::string>{});
      info.command = meta.value("command", "");
      info.ktune_version = meta.value("ktune_version", "");
      info.started_at = meta.value("started_at", "");
      info.nvrtc_version = meta.value("nvrtc_version", "");
      root.at("device").get_to(info.device);
      *info_out = std::move(info);
    }
    const json& problems = root.at("problems");
    if (!problems.is_array()) throw Error("\"problems\" is not an array");
    std::vector<ProblemResult> out;
    for (const auto& p : problems) {
      ProblemResult r;
      p.at("problem").get_to(r.problem);
      if (auto cost = p.find("cost"); cost != p.end()) cost->get_to(r.cost);
      p.at("records").get_to(r.records);
      if (auto ruled = p.find("ruled_out"); ruled != p.end())
        for (const json& c : *ruled)
          r.ruled_out.push_back({c.at("config").get<std::string>(), c.at("reason").get<std::string>(),
                                 c.at("count").get<int64_t>()});
      if (auto sweep = p.find("sweep_baseline"); sweep != p.end())
        r.sweep_baseline = SweepBaseline{sweep->at("before_ms").get<double>(), sweep->at("after_ms").get<double>()};
      out.push_back(std::move(r));
    }
    return out;
  } catch (const json::parse_error& e) {
    throw ConfigError(fmt::format("{}: not a ktune results file (not JSON: byte {})", path.string(), e.byte));
  } catch (const json::exception& e) {
    throw ConfigError(fmt::format("{}: {}", path.string(), e.what()));
  } catch (const Error& e) {
    throw ConfigError(fmt::format("{}: {}", path.string(), e.what()));
  }
}

}  // namespace ktune
