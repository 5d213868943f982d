// Google Benchmark JSON for bench results; see gbench_json.hpp for the mapping.
#include "store/gbench_json.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <thread>

namespace ktune {
namespace {

using json = nlohmann::ordered_json;

// The order compare.py shows a problem's entries in (per_family_instance_index): ktune's, then
// the baseline's, each named by its provider.
constexpr Role kRoles[] = {Role::candidate, Role::baseline};

std::string local_date_time() {
  std::time_t t = std::time(nullptr);
  std::tm local{};
  localtime_r(&t, &local);
  char stamp[32], zone[8];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &local);
  std::strftime(zone, sizeof zone, "%z", &local);  // "+0100"
  std::string z = zone;
  if (z.size() == 5) z.insert(3, ":");  // "+01:00", as Google Benchmark writes it
  return stamp + z;
}

std::string params_text(const Bindings& params) {
  std::string out;
  for (const auto& [name, value] : params) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

bool usable(const CandidateRecord& rec) {
  return rec.disposition == Disposition::passed && rec.time && rec.time->median > 0;
}

json entry(const std::string& name, size_t problem_index, size_t source_index) {
  return {{"name", name},
          {"family_index", problem_index},
          {"per_family_instance_index", source_index},
          {"run_name", name},
          {"run_type", "iteration"},
          {"repetitions", 1},
          {"repetition_index", 0},
          {"threads", 1}};
}

}  // namespace

GbenchHost gbench_host_now() {
  GbenchHost host;
  host.date = local_date_time();
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host.host_name = name;
  host.num_cpus = static_cast<int>(std::thread::hardware_concurrency());
  double load[3];
  const int n = getloadavg(load, 3);
  host.load_avg.assign(load, load + std::max(n, 0));
  return host;
}

std::string gbench_name(const Problem& problem, const std::string& source, const std::vector<std::string>& dim_order) {
  std::string name = fmt::format("{}_{}", problem.family, problem.dtype);
  for (const auto& [option, value] : problem.options) name += "_" + value;
  for (const std::string& dim : dim_order)
    if (auto it = problem.dims.find(dim); it != problem.dims.end()) name += fmt::format("/{}:{}", dim, it->second);
  for (const auto& [dim, value] : problem.dims)
    if (std::find(dim_order.begin(), dim_order.end(), dim) == dim_order.end()) name += fmt::format("/{}:{}", dim, value);
  return name + "/" + source;
}

json gbench_json(const RunInfo& info, const std::vector<ProblemResult>& results, const GbenchHost& host,
                 const ProblemColumns& columns) {
  const DeviceInfo& d = info.device;
  json context = {{"date", host.date},
                  {"host_name", host.host_name},
                  {"executable", info.argv.empty() ? std::string("ktune") : info.argv.front()},
                  {"num_cpus", host.num_cpus},
                  {"load_avg", host.load_avg},
                  {"caches", json::array()},
#ifdef NDEBUG
                  {"library_build_type", "release"},
#else
                  {"library_build_type", "debug"},
#endif
                  {"json_schema_version", 1},
                  // Custom context, as benchmark::AddCustomContext writes it: strings.
                  {"ktune_version", info.ktune_version},
                  {"gpu", d.name},
                  {"gpu_cc", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                  {"gpu_sm_count", std::to_string(d.sm_count)},
                  {"driver_version", std::to_string(d.driver_version)},
                  {"nvrtc_version", info.nvrtc_version},
                  {"command", info.command}};

  json benchmarks = json::array();
  for (size_t p = 0; p < results.size(); ++p) {
    const ProblemResult& r = results[p];
    for (size_t s = 0; s < std::size(kRoles); ++s) {
      const CandidateRecord* best = nullptr;
      const CandidateRecord* failed = nullptr;
      for (const CandidateRecord& rec : r.records) {
        if (rec.role != kRoles[s]) continue;
        if (!usable(rec)) {
          if (!failed) failed = &rec;
        } else if (!best || rec.time->median < best->time->median) {
          best = &rec;
        }
      }
      if (!best && !failed) continue;
      json b = entry(gbench_name(r.problem, (best ? best : failed)->source, columns.dims), p, s);
      if (!best) {
        b["error_occurred"] = true;
        b["error_message"] = fmt::format("{}: {}", to_string(failed->disposition), failed->reason);
        b["iterations"] = 0;
        b["real_time"] = 0.0;
        b["cpu_time"] = 0.0;
        b["time_unit"] = "us";
        b["label"] = failed->is_baseline() ? failed->kernel_name : params_text(failed->params);
      } else {
        const double us = best->time->median * 1e3;
        b["iterations"] = best->time->n;
        b["real_time"] = us;
        b["cpu_time"] = us;
        b["time_unit"] = "us";
        b["TFLOPS"] = best->tflops;
        b["GB/s"] = best->gbps;
        b["label"] = best->is_baseline() ? best->kernel_name : params_text(best->params);
      }
      benchmarks.push_back(std::move(b));
    }
  }
  return {{"context", std::move(context)}, {"benchmarks", std::move(benchmarks)}};
}

}  // namespace ktune
