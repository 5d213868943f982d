// NVRTC compile of one request, behind an on-disk cache. A cache entry is <key>.cubin (successful
// compiles only) and <key>.json (the CompileInfo without cubin_path). Both are written atomically,
// the json last, so an entry whose writing was cut short (or damaged since) reads as a miss.
#include "compile/nvrtc_compiler.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <system_error>

#include "compile/ptxas_report.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

#ifndef KTUNE_CUDA_INCLUDE_DIR
#error "KTUNE_CUDA_INCLUDE_DIR must name the CUDA include directory (CMake defines it)"
#endif

namespace ktune {
namespace {

namespace fs = std::filesystem;

constexpr int kCacheFormat = 1;  // bump when the json layout or the key recipe changes

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// -I options for the CUDA headers. KTUNE_CUDA_INCLUDE_DIR is CMake's CUDAToolkit_INCLUDE_DIRS,
// a ;-separated list in some CMake versions. CUDA 13 moved <cuda/...> and CUB to include/cccl,
// which older CMake does not list.
const std::vector<std::string>& cuda_include_options() {
  static const std::vector<std::string> options = [] {
    std::vector<std::string> dirs;
    std::string_view list = KTUNE_CUDA_INCLUDE_DIR;
    while (!list.empty()) {
      size_t end = std::min(list.find(';'), list.size());
      if (end > 0) dirs.emplace_back(list.substr(0, end));
      list.remove_prefix(std::min(end + 1, list.size()));
    }
    if (!dirs.empty()) {
      std::string cccl = dirs.front() + "/cccl";
      std::error_code ec;
      if (fs::is_directory(cccl, ec) && std::find(dirs.begin(), dirs.end(), cccl) == dirs.end())
        dirs.push_back(cccl);
    }
    std::vector<std::string> result;
    for (const auto& dir : dirs) result.push_back("-I" + dir);
    return result;
  }();
  return options;
}

std::string call_failed(std::string_view call, nvrtcResult result) {
  return fmt::format("{} failed: {}\n", call, nvrtcGetErrorString(result));
}

// Owns one nvrtcProgram for the length of a compile.
class Program {
 public:
  Program() = default;
  ~Program() {
    if (program_) nvrtcDestroyProgram(&program_);
  }
  // not copyable or movable: it never leaves the function that made it
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  nvrtcProgram* out() { return &program_; }
  nvrtcProgram get() const { return program_; }

  std::string log() const {
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program_, &size) != NVRTC_SUCCESS || size == 0) return {};
    std::string text(size, '\0');
    if (nvrtcGetProgramLog(program_, text.data()) != NVRTC_SUCCESS) return {};
    text.resize(text.find('\0') == std::string::npos ? size : text.find('\0'));
    return text;
  }

 private:
  nvrtcProgram program_ = nullptr;
};

struct Outcome {
  CompileInfo info;
  std::string cubin;       // the bytes, when info.ok
  bool cacheable = false;  // the result depends only on the request, so it will happen again
};

Outcome run_nvrtc(const CompileRequest& request, const std::vector<std::string>& options) {
  Outcome out;
  CompileInfo& info = out.info;
  if (!request.arch.starts_with("sm_")) {
    info.log = fmt::format("arch '{}' is not a real architecture (sm_XX): no cubin can be built\n",
                           request.arch);
    return out;
  }

  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : request.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  Program program;
  nvrtcResult result = nvrtcCreateProgram(
      program.out(), request.source_text.c_str(), request.source_name.c_str(),
      static_cast<int>(header_texts.size()), header_texts.data(), header_names.data());
  if (result != NVRTC_SUCCESS) {
    info.log = call_failed("nvrtcCreateProgram", result);
    return out;
  }
  if (!request.name_expression.empty()) {
    result = nvrtcAddNameExpression(program.get(), request.name_expression.c_str());
    if (result != NVRTC_SUCCESS) {
      info.log = call_failed("nvrtcAddNameExpression", result);
      return out;
    }
  }

  std::vector<const char*> option_ptrs;
  for (const auto& option : options) option_ptrs.push_back(option.c_str());
  result = nvrtcCompileProgram(program.get(), static_cast<int>(option_ptrs.size()),
                               option_ptrs.data());
  std::string log = program.log();
  if (result != NVRTC_SUCCESS) {
    // ptxas may have printed its figures before failing ("240000 bytes smem"): keep them, and
    // name the result, since such a failure leaves no error line in the log.
    parse_ptxas_report(log, info);
    info.log = log + call_failed("nvrtcCompileProgram", result);
    // A compilation error is the source's fault and will recur; an invalid option or an
    // out-of-memory is the setup's, so it is not remembered.
    out.cacheable = result == NVRTC_ERROR_COMPILATION;
    return out;
  }

  if (!request.name_expression.empty()) {
    const char* lowered = nullptr;
    result = nvrtcGetLoweredName(program.get(), request.name_expression.c_str(), &lowered);
    if (result != NVRTC_SUCCESS) {
      info.log = log + call_failed("nvrtcGetLoweredName", result);
      return out;
    }
    info.lowered_name = lowered;
  }
  parse_ptxas_report(log, info);

  size_t cubin_size = 0;
  result = nvrtcGetCUBINSize(program.get(), &cubin_size);
  if (result == NVRTC_SUCCESS && cubin_size > 0) {
    out.cubin.resize(cubin_size);
    result = nvrtcGetCUBIN(program.get(), out.cubin.data());
  }
  if (result != NVRTC_SUCCESS || cubin_size == 0) {
    info.log = log + call_failed("nvrtcGetCUBIN", result);
    return out;
  }
  info.ok = true;
  // Both front-end ("warning #177-D") and ptxas ("ptxas warning :") warnings say "warning".
  if (log.find("warning") != std::string::npos) info.log = std::move(log);
  out.cacheable = true;
  return out;
}

// Every input that can change NVRTC's output. Each field is hashed after its length, so that
// moving text from one field to the next changes the key.
std::string cache_key(const CompileRequest& request, const std::vector<std::string>& options) {
  uint64_t hash = fnv1a64("ktune-compile-cache");
  auto add = [&hash](std::string_view field) {
    hash = fnv1a64(fmt::format("{}:", field.size()), hash);
    hash = fnv1a64(field, hash);
  };
  add(std::to_string(kCacheFormat));
  add(NvrtcCompiler::nvrtc_version());
  add(request.arch);
  add(request.source_name);  // appears in the log and in the line info
  add(request.source_text);
  add(std::to_string(request.headers.size()));
  for (const auto& [name, text] : request.headers) {
    add(name);
    add(text);
  }
  add(request.name_expression);
  add(std::to_string(options.size()));
  for (const auto& option : options) add(option);
  return hex64(hash);
}

nlohmann::json to_cache_json(const CompileRequest& request, const CompileInfo& info) {
  return {
      {"format", kCacheFormat},
      // Not needed to read the entry back: checked on reading, and useful to a person browsing.
      {"name_expression", request.name_expression},
      {"arch", request.arch},
      {"ok", info.ok},
      {"compile_ms", info.compile_ms},
      {"registers", info.registers},
      {"spill_stores", info.spill_stores},
      {"spill_loads", info.spill_loads},
      {"stack_frame", info.stack_frame},
      {"static_smem", info.static_smem},
      {"perf_warnings", info.perf_warnings},
      {"log", info.log},
      {"lowered_name", info.lowered_name},
  };
}

std::optional<CompileInfo> from_cache_json(const std::string& text, const CompileRequest& request) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    if (j.at("format") != kCacheFormat || j.at("name_expression") != request.name_expression ||
        j.at("arch") != request.arch)
      return std::nullopt;
    CompileInfo info;
    info.ok = j.at("ok").get<bool>();
    info.compile_ms = j.at("compile_ms").get<double>();
    info.registers = j.at("registers").get<int>();
    info.spill_stores = j.at("spill_stores").get<int>();
    info.spill_loads = j.at("spill_loads").get<int>();
    info.stack_frame = j.at("stack_frame").get<int>();
    info.static_smem = j.at("static_smem").get<int>();
    info.perf_warnings = j.at("perf_warnings").get<std::vector<std::string>>();
    info.log = j.at("log").get<std::string>();
    info.lowered_name = j.at("lowered_name").get<std::string>();
    return info;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a field missing or of the wrong type: not an entry we wrote
  }
}

std::optional<CompileInfo> load_cached(const fs::path& dir, const std::string& key,
                                       const CompileRequest& request) {
  fs::path json_path = dir / (key + ".json");
  fs::path cubin_path = dir / (key + ".cubin");
  std::error_code ec;
  if (!fs::is_regular_file(json_path, ec)) return std::nullopt;
  std::optional<CompileInfo> info;
  try {
    info = from_cache_json(read_file(json_path), request);
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable now (removed meanwhile, permissions): compile again
  }
  if (!info) return std::nullopt;
  if (info->ok) {
    uintmax_t size = fs::file_size(cubin_path, ec);
    if (ec || size == 0) return std::nullopt;
    info->cubin_path = cubin_path.string();
  }
  info->from_cache = true;
  return info;
}

}  // namespace

NvrtcCompiler::NvrtcCompiler(fs::path cache_dir) {
  if (cache_dir.empty()) return;
  cubin_dir_ = std::move(cache_dir) / "cubins";
  std::error_code ec;
  fs::create_directories(cubin_dir_, ec);
  if (ec)
    throw Error(fmt::format("cannot create the compile cache directory {}: {}", cubin_dir_.string(),
                            ec.message()));
}

std::string NvrtcCompiler::nvrtc_version() {
  static const std::string version = [] {
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    return fmt::format("{}.{}", major, minor);
  }();
  return version;
}

std::vector<std::string> NvrtcCompiler::nvrtc_options(const CompileRequest& request) {
  std::vector<std::string> options = {"--gpu-architecture=" + request.arch};
  const auto& includes = cuda_include_options();
  options.insert(options.end(), includes.begin(), includes.end());
  options.insert(options.end(),
                 {"--std=c++17", "-default-device", "--ptxas-options=-v", "-lineinfo"});
  options.insert(options.end(), request.extra_options.begin(), request.extra_options.end());
  return options;
}

CompileInfo NvrtcCompiler::compile(const CompileRequest& request) {
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> options = nvrtc_options(request);
  if (cubin_dir_.empty()) {
    Outcome out = run_nvrtc(request, options);
    out.info.compile_ms = ms_since(start);
    return out.info;
  }

  std::string key = cache_key(request, options);
  if (auto hit = load_cached(cubin_dir_, key, request)) {
    hit->compile_ms = ms_since(start);
    return *hit;
  }
  Outcome out = run_nvrtc(request, options);
  out.info.compile_ms = ms_since(start);
  if (out.cacheable) {
    fs::path cubin_path = cubin_dir_ / (key + ".cubin");
    if (out.info.ok) write_file_atomic(cubin_path, out.cubin);
    write_file_atomic(cubin_dir_ / (key + ".json"), to_cache_json(request, out.info).dump(1));
    if (out.info.ok) out.info.cubin_path = cubin_path.string();
  }
  return out.info;
}

}  // namespace ktune
