#include "tune/compile_candidates.hpp"

#include <fmt/format.h>

#include <algorithm>

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

SweepCandidates enumerate_candidates(const SweepConfig& config, const KernelFamily& family, const Problem& problem,
                                     const ArchFacts& arch) {
  SweepCandidates out;
  if (std::string why = arch_mismatch(config, arch.arch); !why.empty()) {
    int64_t all = 1;
    for (const auto& [name, values] : config.parameters) all *= static_cast<int64_t>(values.size());
    out.ruled_out.push_back({config.name, why, all});
    return out;
  }
  Enumeration e = enumerate(config, family.context(problem, arch), family.placeholders(problem));
  for (const auto& [reason, count] : e.ruled_out) out.ruled_out.push_back({config.name, reason, count});
  out.records.resize(e.candidates.size());
  for (size_t i = 0; i < e.candidates.size(); ++i) {
    Candidate& c = e.candidates[i];
    CandidateRecord& rec = out.records[i];
    rec.source = "ktune";
    rec.config_name = config.name;
    rec.params = std::move(c.params);
    rec.kernel_name = std::move(c.kernel_name);
    rec.launch = std::move(c.launch);
    if (!c.valid) {
      rec.disposition = Disposition::invalid;
      rec.reason = std::move(c.invalid_reason);
    } else {
      rec.estimate = c.estimate;
    }
  }
  return out;
}

CompileRequest compile_request(const KernelSource& source, const CandidateRecord& rec, const std::string& arch,
                               const std::vector<KernelParam>& params) {
  CompileRequest request;
  request.source_name = source.name;
  request.source_text = source.text + parameter_check(rec.kernel_name, params);
  request.headers = source.headers;
  request.name_expression = rec.kernel_name;
  request.arch = arch;
  return request;
}

void judge_compile(CandidateRecord& rec, CompileInfo info, bool allow_spills) {
  rec.compile = std::move(info);
  if (!rec.compile.ok) {
    rec.disposition = Disposition::compile_failed;
    rec.reason = first_error_line(rec.compile.log);
  } else if (!allow_spills && (rec.compile.spill_stores > 0 || rec.compile.spill_loads > 0)) {
    rec.disposition = Disposition::invalid;
    rec.reason = fmt::format("ptxas spills registers ({} bytes stored, {} loaded)", rec.compile.spill_stores,
                             rec.compile.spill_loads);
  } else if (!rec.compile.perf_warnings.empty()) {
    rec.disposition = Disposition::invalid;
    rec.reason = "ptxas: " + rec.compile.perf_warnings.front();
  }
}

SweepCandidates compile_candidates(Compiler& compiler, const SweepConfig& config, const KernelSource& source,
                                   const KernelFamily& family, const Problem& problem, const ArchFacts& arch,
                                   const CompileOptions& options) {
  SweepCandidates out = enumerate_candidates(config, family, problem, arch);
  std::vector<CandidateRecord>& records = out.records;
  std::vector<size_t> request_owner;
  for (size_t i = 0; i < records.size(); ++i)
    if (records[i].disposition == Disposition::not_run) request_owner.push_back(i);
  if (options.pick) {  // keep the picked valid candidates, record the rest as left out
    std::vector<Bindings> params;
    for (size_t i : request_owner) params.push_back(records[i].params);
    std::vector<size_t> kept;
    for (size_t k : options.pick(params)) kept.push_back(request_owner[k]);
    for (size_t i : request_owner)
      if (!std::binary_search(kept.begin(), kept.end(), i)) records[i].reason = options.left_out;
    request_owner = std::move(kept);
  }
  std::vector<CompileRequest> requests;
  const std::vector<KernelParam> params = family.kernel_parameters(problem, config);
  for (size_t i : request_owner) requests.push_back(compile_request(source, records[i], options.arch, params));

  Progress progress("compiling", requests.size(), options.show_progress);
  std::vector<CompileInfo> infos =
      compile_all(compiler, requests, options.jobs, [&](size_t, size_t) { progress.step(); });
  progress.finish();

  for (size_t r = 0; r < infos.size(); ++r) judge_compile(records[request_owner[r]], std::move(infos[r]), options.allow_spills);
  return out;
}

}  // namespace ktune
