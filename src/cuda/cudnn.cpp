// Loading cuDNN (dlopen, every function by dlsym, the version and sub-libraries checked once per
// library name) and the handle; the baselines built on it are cudnn_softmax.cpp and cudnn_norm.cpp.
#include "cuda/cudnn.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "cuda/detail/cudnn_api.hpp"
#include "util/optional_library.hpp"

namespace ktune::cuda {

using detail::api_or_throw;
using detail::CudnnApi;
using detail::fail;
using detail::last_error;
using detail::status_text;

namespace {

std::string version_string(size_t v) {
  // cuDNN 9 counts major * 10000 + minor * 100 + patch; cuDNN 8 counted major * 1000 + ...
  if (v < 90000) return fmt::format("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100);
  return fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100);
}

struct Loaded {
  CudnnApi api;
  std::string error;  // empty when api is usable
};

std::string not_available(const std::string& reason) { return "cuDNN is not available: " + reason; }

Loaded load(const std::string& library) {
  Loaded l;
  l.api.library = library;
  OptionalLibrary lib("cuDNN", library, "KTUNE_CUDNN_LIBRARY",
                      "install cuDNN 9 (Debian: libcudnn9-cuda-13) or point KTUNE_CUDNN_LIBRARY at libcudnn.so.9");
#define KTUNE_CUDNN_RESOLVE(fn) lib.require(#fn, l.api.fn, "not cuDNN 9?");
  KTUNE_CUDNN_FUNCTIONS(KTUNE_CUDNN_RESOLVE)
#undef KTUNE_CUDNN_RESOLVE
  l.api.cudnnGetLastErrorString = lib.optional<decltype(&::cudnnGetLastErrorString)>("cudnnGetLastErrorString");
  if (!lib.usable()) {
    l.error = lib.error();
    return l;
  }

  // The attribute and enum values ktune passes are cuDNN 9's (the headers it was built with).
  l.api.version = l.api.cudnnGetVersion();
  if (l.api.version < 90000 || l.api.version >= 100000) {
    l.error = not_available(fmt::format("{} is cuDNN {}; ktune needs cuDNN 9", library, version_string(l.api.version)));
    return l;
  }
  // cuDNN 9 loads libcudnn_graph.so.9 and libcudnn_ops.so.9 on first use; ask each for a
  // descriptor now (no GPU needed) so that a missing sub-library is this message, not a failure
  // halfway through a run.
  const CudnnApi& api = l.api;
  cudnnBackendDescriptor_t backend = nullptr;
  cudnnStatus_t s = api.cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, &backend);
  if (s != CUDNN_STATUS_SUCCESS) {
    std::string last = last_error(api);
    l.error = not_available(fmt::format("{}: cudnnBackendCreateDescriptor failed: {}{}{}", library,
                                        status_text(&api, s), last.empty() ? "" : ": ", last));
    return l;
  }
  api.cudnnBackendDestroyDescriptor(backend);
  cudnnTensorDescriptor_t tensor = nullptr;
  s = api.cudnnCreateTensorDescriptor(&tensor);
  if (s != CUDNN_STATUS_SUCCESS) {
    std::string last = last_error(api);
    l.error = not_available(fmt::format("{}: cudnnCreateTensorDescriptor failed: {}{}{}", library,
                                        status_text(&api, s), last.empty() ? "" : ": ", last));
    return l;
  }
  api.cudnnDestroyTensorDescriptor(tensor);
  return l;
}

const Loaded& loaded() { return load_once_per_name<Loaded>(cudnn_library_name(), load); }

}  // namespace

namespace detail {

std::string status_text(const CudnnApi* api, cudnnStatus_t status) {
  const char* name = api && api->cudnnGetErrorString ? api->cudnnGetErrorString(status) : nullptr;
  return fmt::format("{} ({})", name ? name : "unknown cuDNN status", static_cast<int>(status));
}

// cuDNN's message for the last failure on this thread, if it keeps one.
std::string last_error(const CudnnApi& api) {
  if (!api.cudnnGetLastErrorString) return {};
  std::array<char, 2048> buffer{};
  api.cudnnGetLastErrorString(buffer.data(), buffer.size());
  buffer.back() = '\0';
  std::string s = buffer.data();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
  return s;
}

[[noreturn]] void fail(const CudnnApi& api, cudnnStatus_t status, std::string_view call) {
  std::string last = last_error(api);
  throw CudnnError(fmt::format("{} failed: {}{}{}", call, status_text(&api, status), last.empty() ? "" : ": ", last),
                   status);
}

void check(const CudnnApi& api, cudnnStatus_t status, std::string_view call) {
  if (status != CUDNN_STATUS_SUCCESS) fail(api, status, call);
}

const CudnnApi& api_or_throw() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw Error(l.error);
  return l.api;
}

}  // namespace detail

// ---- loading ----

std::string cudnn_library_name() {
  const char* env = std::getenv("KTUNE_CUDNN_LIBRARY");
  return env && *env ? env : "libcudnn.so.9";
}

bool cudnn_available() { return loaded().error.empty(); }

std::string cudnn_unavailable_reason() { return loaded().error; }

std::string cudnn_version_text() {
  const Loaded& l = loaded();
  return l.error.empty() ? version_string(l.api.version) : std::string();
}

void cudnn_check(cudnnStatus_t status, std::string_view call) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  const Loaded& l = loaded();
  if (l.error.empty()) fail(l.api, status, call);
  throw CudnnError(fmt::format("{} failed: {}", call, status_text(nullptr, status)), status);
}

cudnnDataType_t cudnn_data_type(std::string_view dtype) {
  if (dtype == "fp16") return CUDNN_DATA_HALF;
  if (dtype == "bf16") return CUDNN_DATA_BFLOAT16;
  if (dtype == "fp32") return CUDNN_DATA_FLOAT;
  throw Error(fmt::format("no cuDNN baseline for dtype \"{}\" (fp16, bf16 or fp32)", dtype));
}

std::string_view to_string(CudnnNormKind kind) {
  return kind == CudnnNormKind::layer_norm ? "layernorm" : "rmsnorm";
}

// ---- CudnnHandle ----

CudnnHandle::CudnnHandle(cudaStream_t stream) : api_(&api_or_throw()) {
  KTUNE_CUDNN_CALL(*api_, cudnnCreate, &handle_);
  if (!stream) return;
  try {
    set_stream(stream);
  } catch (...) {
    api_->cudnnDestroy(handle_);
    throw;
  }
}

CudnnHandle::~CudnnHandle() {
  if (!handle_) return;
  cudnnStatus_t s = api_->cudnnDestroy(handle_);
  if (s != CUDNN_STATUS_SUCCESS)
    fprintf(stderr, "ktune: warning: cudnnDestroy failed: %s\n", status_text(api_, s).c_str());
}

CudnnHandle::CudnnHandle(CudnnHandle&& o) noexcept : api_(o.api_), handle_(std::exchange(o.handle_, nullptr)) {}

CudnnHandle& CudnnHandle::operator=(CudnnHandle&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(handle_, o.handle_);
  return *this;
}

void CudnnHandle::set_stream(cudaStream_t stream) const { KTUNE_CUDNN_CALL(*api_, cudnnSetStream, handle_, stream); }

}  // namespace ktune::cuda
