#include "tune/compile_candidates.hpp"

#include <fmt/format.h>

#include "compile/compile_all.hpp"
#include "space/enumerate.hpp"
#include "util/progress.hpp"

namespace ktune {
namespace {

// The first error line of an NVRTC log: enough for a table cell; the full log stays in the record.
std::string first_error_line(const std::string& log) {
  size_t pos = log.find("error");
  if (pos == std::string::npos) pos = 0;
  size_t start = log.rfind('\n', pos);
  start = start == std::string::npos ? 0 : start + 1;
  size_t end = log.find('\n', pos);
  return log.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::vector<CandidateRecord> compile_candidates(Compiler& compiler, const SweepConfig& config,
                                                const KernelSource& source, const KernelFamily& family,
                                                const Problem& problem, const ArchFacts& arch,
                                                const CompileOptions& options) {
  std::vector<Candidate> candidates =
      enumerate(config, family.context(problem, arch), family.placeholders(problem));

  std::vector<CandidateRecord> records(candidates.size());
  std::vector<CompileRequest> requests;
  std::vector<size_t> request_owner;
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateRecord& rec = records[i];
    rec.source = "ktune";
    rec.config_name = config.name;
    rec.params = candidates[i].params;
    rec.kernel_name = candidates[i].kernel_name;
    rec.launch = candidates[i].launch;
    if (arch.arch < config.min_arch) {
      rec.disposition = Disposition::invalid;
      rec.reason = fmt::format("needs sm_{} or newer", config.min_arch);
      continue;
    }
    if (!candidates[i].valid) {
      rec.disposition = Disposition::invalid;
      rec.reason = candidates[i].invalid_reason;
      continue;
    }
    CompileRequest request;
    request.source_name = source.name;
    request.source_text = source.text;
    request.headers = source.headers;
    request.name_expression = rec.kernel_name;
    request.arch = options.arch;
    requests.push_back(std::move(request));
    request_owner.push_back(i);
  }

  Progress progress("compiling", requests.size(), options.show_progress);
  std::vector<CompileInfo> infos =
      compile_all(compiler, requests, options.jobs, [&](size_t, size_t) { progress.step(); });
  progress.finish();

  for (size_t r = 0; r < infos.size(); ++r) {
    CandidateRecord& rec = records[request_owner[r]];
    rec.compile = std::move(infos[r]);
    if (!rec.compile.ok) {
      rec.disposition = Disposition::compile_failed;
      rec.reason = first_error_line(rec.compile.log);
    } else if (!options.allow_spills && (rec.compile.spill_stores > 0 || rec.compile.spill_loads > 0)) {
      rec.disposition = Disposition::invalid;
      rec.reason = fmt::format("ptxas spills registers ({} bytes stored, {} loaded)", rec.compile.spill_stores,
                               rec.compile.spill_loads);
    } else if (!rec.compile.perf_warnings.empty()) {
      rec.disposition = Disposition::invalid;
      rec.reason = "ptxas: " + rec.compile.perf_warnings.front();
    }
  }
  return records;
}

}  // namespace ktune
