// Result files of a run: <stem>.json holds everything (run header, device, every record with its
// raw samples) and reads back for reports; <stem>.csv is one flat row per record for a
// spreadsheet or pandas. Both are written atomically.
//
// JSON: {"schema_version": 1,
//        "meta": {"argv", "command", "ktune_version", "started_at", "nvrtc_version"},
//        "device": {...DeviceInfo...},
//        "problems": [{"problem", "cost", "records": [...CandidateRecord...],
//                      "ruled_out": [{"config", "reason", "count"}]}]}
// Candidates a config's constraint ruled out before anything ran (most of a GEMM sweep's
// combinations) are counted by config and reason in "ruled_out" instead of listed one by one, as
// the enumeration counted them: a `ktune gemm` results file was once 15 MB of them. Every other
// record, spills and failed compiles included, is kept whole.
// CSV columns: family, the problem dims (M, N, K first, then others by name), dtype, layout,
// source, config_name, one column per parameter (the union of names over all records, sorted; a
// name that clashes with another column gets a "param_" prefix), kernel_name, disposition, reason,
// registers, spill_stores, spill_loads, median_ms, mean_ms, min_ms, max_ms, stdev_ms, p20_ms,
// p80_ms, n, pruned, tflops, gbps, max_abs_err, max_rel_err, norm_rel_err, ratio_vs_baseline.
// A value a record does not have (no timing, no compile info, no error check) is an empty cell.
// Ruled-out candidates have no rows (the .json counts them).
// Fields are quoted as RFC 4180 asks (kernel names hold commas).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/record.hpp"

namespace ktune {

inline constexpr int kResultsSchemaVersion = 1;

struct RunInfo {  // the header of a results file
  std::vector<std::string> argv;
  std::string ktune_version;
  std::string started_at;  // ISO-8601 UTC
  DeviceInfo device;
  std::string nvrtc_version;
  std::string command;  // the command line as one pasteable string
};

// A record its config's constraints ruled out before it was compiled or run (make_candidate's,
// for `verify --set`; an enumeration counts them instead).
bool ruled_out_by_constraint(const CandidateRecord& rec);

// The first baseline's median timed alone before a sweep and again right after its one pass:
// the records that took only that pass (no `rounds`) have their ratios against after_ms
// (tune/tuner.cpp says why), the finalists against the baseline samples paired with theirs.
struct SweepBaseline {
  double before_ms = 0, after_ms = 0;
};

// records[0..]: the cuBLAS reference record has source == "cublas".
struct ProblemResult {
  Problem problem;
  Cost cost;
  std::vector<CandidateRecord> records;
  std::vector<RuledOut> ruled_out;  // what the enumeration counted, or a file's "ruled_out"
  std::optional<SweepBaseline> sweep_baseline;  // set where the baseline was timed again after the pass

  // ruled_out plus the records ruled out by a constraint, counted, by config then reason.
  std::vector<RuledOut> ruled_out_counts() const;
};

// What the .json holds.
nlohmann::json results_to_json(const RunInfo& info, const std::vector<ProblemResult>& results);

// The order of the problem columns of the .csv: dimensions, then options. Only the families know
// it (families/family.hpp, dim_columns and option_columns); names a problem has that are not
// listed follow, sorted.
struct ProblemColumns {
  std::vector<std::string> dims, options;
};

// What the .csv holds: a header line, then one line per record, "\n"-terminated.
std::string results_to_csv(const std::vector<ProblemResult>& results, const ProblemColumns& columns = {});

// Writes <out_dir>/<stem>.json and <out_dir>/<stem>.csv (creating out_dir); returns both paths.
std::pair<std::filesystem::path, std::filesystem::path> write_results(
    const std::filesystem::path& out_dir, const std::string& stem, const RunInfo& info,
    const std::vector<ProblemResult>& results, const ProblemColumns& columns = {});

// The ktune record a problem's results say won, as an index into r.records; none when no
// candidate passed. A bench file holds one passed ktune record per problem; a tuning's file
// (`ktune gemm ... --out`) holds every candidate, and its winner is the tuner's: the fastest of the
// finalists (the records with interleaved rounds against the baseline), else of all passed.
std::optional<size_t> recorded_winner(const ProblemResult& r);

// Reads a results .json back, gzipped or not (util/gzip_file.hpp); fills *info_out when given.
// Throws ktune::ConfigError naming the file for unreadable, malformed or newer-schema files.
std::vector<ProblemResult> read_results(const std::filesystem::path& path, RunInfo* info_out);

// A results file's name without its ".gz" and then its ".json" (bench-x.json.gz -> bench-x): what
// the files made from it (`ktune report`'s) are named after.
std::string results_stem(const std::filesystem::path& path);

}  // namespace ktune
