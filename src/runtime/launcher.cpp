#include "runtime/launcher.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "compile/embedded.hpp"
#include "compile/kernel_source.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/check.hpp"
#include "cuda/device_query.hpp"
#include "cuda/driver.hpp"
#include "cuda/launch_check.hpp"
#include "cuda/resources.hpp"
#include "space/enumerate.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/spawn.hpp"

namespace ktune {

namespace fs = std::filesystem;

struct Launcher::Prepared {
  RuntimeChoice choice;
  const KernelFamily* family = nullptr;
  Problem problem;  // completed
  std::unique_ptr<cuda::Module> module;
  CUfunction function = nullptr;
  std::vector<LaunchOperand> operands;
  std::map<std::string, void*> last_buffers;  // the caller's buffers and stream the arguments below
  CUstream last_stream = nullptr;              // were built for
  KernelArguments arguments;
  std::vector<std::pair<void*, size_t>> zeroed;  // operands zeroed before every launch
};

namespace {

std::string problem_key(const Problem& p) { return nlohmann::json({p.family, p.dtype, p.options, p.dims}).dump(); }

std::string shape_of(const DispatchRow& r) { return nlohmann::json(r.dims).dump(); }

}  // namespace

Launcher::Launcher(fs::path bundle_dir, fs::path cache_dir, std::string tune_on_miss)
    : dir_(std::move(bundle_dir)),
      cache_dir_(cache_dir.empty() ? default_cache_dir() / "runtime" : std::move(cache_dir)),
      tune_on_miss_(std::move(tune_on_miss)) {
  rows_ = read_bundle(dir_);
  for (const BundleRow& r : rows_) {
    table_.push_back(r.row);
    if (!r.declaration.empty()) declare_family(dir_ / r.declaration);
  }
  int ordinal = 0;
  KTUNE_CUDA(cudaGetDevice(&ordinal));
  cuda::driver();  // the current device's context, and the driver's entry points
  device_ = cuda::query_device(ordinal);
}

Launcher::~Launcher() {
  for (auto& [key, ws] : workspaces_) KTUNE_CUDA_WARN(cudaFree(ws.first));
}

Problem Launcher::complete(Problem p) const {
  complete_options(p);
  check_problem(p);
  return p;
}

std::vector<LaunchOperand> Launcher::operands(const Problem& p) const {
  const Problem q = complete(p);
  return find_family(q.family).launch_operands(q);
}

Launcher::Prepared& Launcher::prepared(const Problem& asked) {
  const std::string key = problem_key(asked);
  if (auto it = prepared_.find(key); it != prepared_.end()) return *it->second;
  auto out = std::make_unique<Prepared>();
  out->problem = complete(asked);
  const Problem& p = out->problem;
  out->family = &find_family(p.family);
  out->operands = out->family->launch_operands(p);
  if (out->operands.empty())
    throw Error(fmt::format("{} kernels cannot be launched by the runtime yet (the family declares no launch operands)", p.family));

  // This GPU's rows first, nearest first; then rows tuned on other GPUs, compiled here.
  std::vector<NearestRow> order = nearest_rows(table_, p.family, p.dtype, p.options, p.dims, device_.name, table_.size());
  for (const NearestRow& n : nearest_rows(table_, p.family, p.dtype, p.options, p.dims, "", table_.size()))
    if (n.row->gpu != device_.name) order.push_back(n);
  if (order.empty())
    throw Error(fmt::format("{}: the bundle {} has no {} {} rows with these options", describe(p), dir_.string(), p.family, p.dtype));

  RuntimeChoice& choice = out->choice;
  for (const NearestRow& n : order) {
    const BundleRow& row = rows_.at(static_cast<size_t>(n.row - table_.data()));
    const std::string tuned = fmt::format("{} (tuned at {} on {})", row.row.config, shape_of(row.row), row.row.gpu);
    try {
      const SweepConfig& config = config_of(row, *out->family);
      const Candidate cand = make_candidate(config, recorded_params(config, row.row.params),
                                            out->family->context(p, arch_facts(device_)), out->family->placeholders(p));
      if (!cand.valid) {
        choice.passed_over.push_back(fmt::format("{}: {}", tuned, cand.invalid_reason));
        continue;
      }
      auto cubin = row.cubins.find(device_.arch());
      std::unique_ptr<cuda::Module> module;
      std::string lowered;
      if (cand.kernel_name == row.row.kernel_name && cubin != row.cubins.end()) {
        module = std::make_unique<cuda::Module>(read_file(dir_ / cubin->second.file));
        lowered = cubin->second.lowered_name;
        choice.kernel_from = "bundle cubin";
      } else {
        const KernelSource source = resolve_kernel_source(config);
        NvrtcCompiler compiler(cache_dir_);
        const CompileInfo info = compiler.compile({source.name, source.text, source.headers, cand.kernel_name, device_.arch(), {}});
        if (!info.ok) {
          choice.passed_over.push_back(fmt::format("{}: {} does not compile for {}", tuned, cand.kernel_name, device_.arch()));
          continue;
        }
        module = std::make_unique<cuda::Module>(read_file(info.cubin_path));
        lowered = info.lowered_name;
        choice.kernel_from = "nvrtc";
      }
      CUfunction f = module->function(lowered);
      if (std::string why = cuda::prepare_launch(cuda::driver(), f, cand.launch, device_); !why.empty()) {
        choice.passed_over.push_back(fmt::format("{}: {}", tuned, why));
        continue;
      }
      choice.row = &row;
      choice.distance = n.distance;
      choice.kernel_name = cand.kernel_name;
      choice.launch = cand.launch;
      choice.function = f;
      out->module = std::move(module);
      out->function = f;
      break;
    } catch (const ConfigError& e) {
      choice.passed_over.push_back(fmt::format("{}: {}", tuned, e.what()));
    }
  }
  if (!choice.row) {
    std::string why;
    for (const std::string& s : choice.passed_over) why += "\n  " + s;
    throw Error(fmt::format("{}: no row of the bundle can run it:{}", describe(p), why));
  }
  if (choice.distance > 0 && !tune_on_miss_.empty()) choice.tuning_started = tune_in_background(p);
  return *prepared_.emplace(key, std::move(out)).first->second;
}

const SweepConfig& Launcher::config_of(const BundleRow& row, const KernelFamily& family) {
  const std::string key = row.config_file.empty() ? row.row.family + "/" + row.row.config : row.config_file;
  if (auto it = configs_.find(key); it != configs_.end()) return it->second;
  if (!row.config_file.empty()) return configs_.emplace(key, load_family_config(family, dir_ / row.config_file)).first->second;
  // A row of the bundle's own cache: the family's config of that name (embedded, or a file of a
  // family the bundle declared).
  for (std::string_view path : family.default_configs()) {
    std::optional<SweepConfig> config;
    if (fs::path(path).is_absolute())
      config = load_family_config(family, fs::path(path));
    else if (auto text = find_embedded(path))
      config = parse_family_config(family, *text, std::string(path));
    if (config && config->name == row.row.config) return configs_.emplace(key, std::move(*config)).first->second;
  }
  throw ConfigError(fmt::format("{} has no config named {}", family.name(), row.row.config));
}

bool Launcher::tune_in_background(const Problem& p) {
  // A one-problem suite for `ktune bench`, which tunes what the cache lacks.
  nlohmann::json problem = {{"family", p.family}, {"dtype", p.dtype}};
  for (const auto& [name, value] : p.dims) problem[name] = value;
  for (const auto& [name, value] : p.options) problem[name] = value;
  const fs::path cache = dir_ / "cache";
  const fs::path suite = cache / fmt::format("miss-{:016x}.suite.json", std::hash<std::string>{}(problem.dump()));
  try {
    write_file_atomic(suite, nlohmann::json{{"name", "tune-on-miss"}, {"problems", {problem}}}.dump(2) + "\n");
  } catch (const Error&) {
    return false;  // a bundle the application cannot write to: it goes on with the nearest row
  }
  std::vector<std::string> args = {tune_on_miss_, "bench", suite.string(), "--cache-dir", cache.string(),
                                   "--out", (cache / "results").string(), "--stem", suite.stem().string(), "--no-progress"};
  for (const BundleRow& r : rows_)  // a declared family: its folder in the bundle
    if (r.row.family == p.family && !r.declaration.empty()) {
      args.push_back("--family-path");
      args.push_back((dir_ / r.declaration).parent_path().string());
      break;
    }
  // Detached: the application never waits for the tuning; the next open reads what it wrote.
  return spawn_detached(args, cache / "tune-on-miss.log");
}

void* Launcher::workspace(const LaunchOperand& op, CUstream stream) {
  auto& [ptr, bytes] = workspaces_[fmt::format("{}/{}", static_cast<void*>(stream), op.name)];
  if (bytes < op.bytes) {
    if (ptr) KTUNE_CUDA(cudaFree(ptr));
    ptr = nullptr;
    bytes = 0;
    KTUNE_CUDA(cudaMalloc(&ptr, static_cast<size_t>(op.bytes)));
    KTUNE_CUDA(cudaMemset(ptr, 0, static_cast<size_t>(op.bytes)));  // counters start at zero
    bytes = op.bytes;
  }
  return ptr;
}

RuntimeChoice Launcher::choose(const Problem& p) {
  std::lock_guard lock(mutex_);
  return prepared(p).choice;
}

const RuntimeChoice& Launcher::launch(const Problem& p, const std::map<std::string, void*>& buffers, CUstream stream) {
  std::lock_guard lock(mutex_);
  if (!last_ || !(last_problem_ == p)) {
    last_ = &prepared(p);
    last_problem_ = p;
  }
  Prepared& pr = *last_;
  if (pr.arguments.size() == 0 || stream != pr.last_stream || buffers != pr.last_buffers) {
    std::map<std::string, void*> ops;
    for (const LaunchOperand& op : pr.operands) {
      if (op.workspace) {
        ops[op.name] = workspace(op, stream);
        continue;
      }
      auto it = buffers.find(op.name);
      if (it == buffers.end() || !it->second)
        throw Error(fmt::format("{}: no device buffer {} given ({}, {} bytes)", describe(pr.problem), op.name, op.help, op.bytes));
      ops[op.name] = it->second;
    }
    for (const auto& [name, ptr] : buffers)  // a misspelt name is an error, not an operand left unset
      if (!ops.count(name)) throw Error(fmt::format("{}: {} kernels take no operand {}", describe(pr.problem), pr.problem.family, name));
    pr.arguments.clear();
    pr.family->kernel_arguments(pr.problem, ops, pr.choice.launch.tensor_maps, pr.arguments);
    pr.zeroed.clear();
    for (const LaunchOperand& op : pr.operands)
      if (op.zero_each_launch) pr.zeroed.emplace_back(ops.at(op.name), static_cast<size_t>(op.bytes));
    pr.last_buffers = buffers;
    pr.last_stream = stream;
  }
  for (const auto& [ptr, bytes] : pr.zeroed) KTUNE_CUDA(cudaMemsetAsync(ptr, 0, bytes, stream));
  const Launch& l = pr.choice.launch;
  KTUNE_CU(cuda::driver().launch_kernel(pr.function, static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
                                        static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]),
                                        static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]),
                                        static_cast<unsigned>(l.shared_bytes), stream, pr.arguments.list(), nullptr));
  return pr.choice;
}

}  // namespace ktune
