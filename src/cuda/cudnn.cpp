#include "cuda/cudnn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <utility>
#include <vector>

#include "util/optional_library.hpp"

namespace ktune::cuda {

// Every cuDNN function ktune calls. decltype(&::fn) takes the signature from cudnn.h without
// referencing the symbol, so nothing links against libcudnn; the values come from dlsym.
#define KTUNE_CUDNN_FUNCTIONS(X)    \
  X(cudnnGetVersion)                \
  X(cudnnGetErrorString)            \
  X(cudnnCreate)                    \
  X(cudnnDestroy)                   \
  X(cudnnSetStream)                 \
  X(cudnnCreateTensorDescriptor)    \
  X(cudnnSetTensor4dDescriptor)     \
  X(cudnnDestroyTensorDescriptor)   \
  X(cudnnSoftmaxForward)            \
  X(cudnnBackendCreateDescriptor)   \
  X(cudnnBackendDestroyDescriptor)  \
  X(cudnnBackendSetAttribute)       \
  X(cudnnBackendGetAttribute)       \
  X(cudnnBackendFinalize)           \
  X(cudnnBackendExecute)

namespace detail {
struct CudnnApi {
#define KTUNE_CUDNN_MEMBER(fn) decltype(&::fn) fn = nullptr;
  KTUNE_CUDNN_FUNCTIONS(KTUNE_CUDNN_MEMBER)
#undef KTUNE_CUDNN_MEMBER
  // Optional: the detail behind a status ("cudaGetDeviceCount(&count) != cudaSuccess").
  decltype(&::cudnnGetLastErrorString) cudnnGetLastErrorString = nullptr;

  std::string library;
  size_t version = 0;  // cudnnGetVersion(): 91400 for 9.14.0
};
}  // namespace detail

namespace {

using detail::CudnnApi;

// The handle attributes of the operation graph and the execution plan are marked deprecated in
// recent 9.x headers (a device-property descriptor is the new way, for building plans without a
// GPU). Every cuDNN 9 still takes them, and ktune builds its plans on the GPU it times anyway.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
constexpr cudnnBackendAttributeName_t kOperationGraphHandle = CUDNN_ATTR_OPERATIONGRAPH_HANDLE;
constexpr cudnnBackendAttributeName_t kExecutionPlanHandle = CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
#pragma GCC diagnostic pop

std::string version_string(size_t v) {
  // cuDNN 9 counts major * 10000 + minor * 100 + patch; cuDNN 8 counted major * 1000 + ...
  if (v < 90000) return fmt::format("{}.{}.{}", v / 1000, v % 1000 / 100, v % 100);
  return fmt::format("{}.{}.{}", v / 10000, v % 10000 / 100, v % 100);
}

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

// Calls api.fn(args...) and throws CudnnError naming fn when it fails.
#define KTUNE_CUDNN_CALL(api, fn, ...) check((api), (api).fn(__VA_ARGS__), #fn)

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

const CudnnApi& api_or_throw() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw Error(l.error);
  return l.api;
}

// ---- graph API helpers ----

// One backend descriptor (tensor, operation, graph, heuristics, engine config, plan, variant
// pack). `what` names it in messages: "cudnnBackendFinalize(execution plan) failed: ...".
class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  BackendDescriptor(const CudnnApi& api, cudnnBackendDescriptorType_t type, std::string what)
      : api_(&api), what_(std::move(what)) {
    check(api, api.cudnnBackendCreateDescriptor(type, &desc_), fmt::format("cudnnBackendCreateDescriptor({})", what_));
  }
  ~BackendDescriptor() {
    if (!desc_) return;
    cudnnStatus_t s = api_->cudnnBackendDestroyDescriptor(desc_);
    if (s != CUDNN_STATUS_SUCCESS)
      fprintf(stderr, "ktune: warning: cudnnBackendDestroyDescriptor(%s) failed: %s\n", what_.c_str(),
              status_text(api_, s).c_str());
  }
  // move-only
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;
  BackendDescriptor(BackendDescriptor&& o) noexcept
      : api_(o.api_), desc_(std::exchange(o.desc_, nullptr)), what_(std::move(o.what_)) {}
  BackendDescriptor& operator=(BackendDescriptor&& o) noexcept {
    std::swap(api_, o.api_);
    std::swap(desc_, o.desc_);
    std::swap(what_, o.what_);
    return *this;
  }

  cudnnBackendDescriptor_t get() const { return desc_; }
  explicit operator bool() const { return desc_ != nullptr; }

  void set(cudnnBackendAttributeName_t attr, const char* attr_name, cudnnBackendAttributeType_t type,
           int64_t count, const void* values) {
    check(*api_, api_->cudnnBackendSetAttribute(desc_, attr, type, count, values),
          fmt::format("cudnnBackendSetAttribute({}, {})", what_, attr_name));
  }
  void set_descriptor(cudnnBackendAttributeName_t attr, const char* attr_name, const BackendDescriptor& d) {
    cudnnBackendDescriptor_t raw = d.get();
    set(attr, attr_name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
  }
  cudnnStatus_t try_finalize() { return api_->cudnnBackendFinalize(desc_); }
  void finalize() { check(*api_, try_finalize(), fmt::format("cudnnBackendFinalize({})", what_)); }

 private:
  const CudnnApi* api_ = nullptr;
  cudnnBackendDescriptor_t desc_ = nullptr;
  std::string what_;
};

// The attribute's name goes into the message when cuDNN refuses it.
#define KTUNE_SET_ATTR(desc, attr, type, count, values) (desc).set(attr, #attr, type, count, values)
#define KTUNE_SET_DESC(desc, attr, other) (desc).set_descriptor(attr, #attr, other)

using Dims = std::array<int64_t, 4>;

// A finalized tensor descriptor. The backend wants at least 4 dimensions; ktune's 2-D tensors
// carry two trailing 1s.
BackendDescriptor make_tensor(const CudnnApi& api, const char* name, int64_t uid, cudnnDataType_t dtype, Dims dims,
                              Dims strides, bool by_value = false) {
  BackendDescriptor t(api, CUDNN_BACKEND_TENSOR_DESCRIPTOR, fmt::format("tensor {}", name));
  int64_t alignment = 16;
  KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dtype);
  KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment);
  if (by_value) {
    bool yes = true;
    KTUNE_SET_ATTR(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &yes);
  }
  t.finalize();
  return t;
}

// Tensor UIDs of the norm graph: the variant pack names each pointer by these.
enum NormUid : int64_t { kUidX = 1, kUidScale, kUidBias, kUidEpsilon, kUidY, kUidMean, kUidInvVariance };

const char* heur_mode_name(cudnnBackendHeurMode_t mode) {
  switch (mode) {
    case CUDNN_HEUR_MODE_A: return "A";
    case CUDNN_HEUR_MODE_B: return "B";
    case CUDNN_HEUR_MODE_FALLBACK: return "FALLBACK";
    case CUDNN_HEUR_MODE_INSTANT: return "INSTANT";
    default: return "?";
  }
}

// "engine 12" from an engine config, for reports; "engine ?" when cuDNN does not say.
std::string engine_of(const CudnnApi& api, cudnnBackendDescriptor_t config) {
  try {
    BackendDescriptor engine(api, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine");
    cudnnBackendDescriptor_t raw = engine.get();
    int64_t n = 0;
    int64_t index = -1;
    if (api.cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n,
                                     &raw) != CUDNN_STATUS_SUCCESS ||
        api.cudnnBackendGetAttribute(raw, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &index) !=
            CUDNN_STATUS_SUCCESS) {
      last_error(api);  // read and so cleared: it must not end up in the next, unrelated message
      return "engine ?";
    }
    return fmt::format("engine {}", index);
  } catch (const CudnnError&) {
    return "engine ?";
  }
}

}  // namespace

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

// ---- CudnnSoftmax ----

CudnnSoftmax::CudnnSoftmax(const CudnnHandle& handle, std::string_view dtype, int64_t rows, int64_t cols)
    : api_(&handle.api()), handle_(handle.get()), dtype_(cudnn_data_type(dtype)) {
  if (rows <= 0 || cols <= 0 || rows > INT_MAX || cols > INT_MAX)
    throw Error(fmt::format("cuDNN softmax: {} x {} does not fit a 4-D tensor descriptor (int dimensions)", rows, cols));
  KTUNE_CUDNN_CALL(*api_, cudnnCreateTensorDescriptor, &desc_);
  try {
    KTUNE_CUDNN_CALL(*api_, cudnnSetTensor4dDescriptor, desc_, CUDNN_TENSOR_NCHW, dtype_, static_cast<int>(rows),
                     static_cast<int>(cols), 1, 1);
  } catch (...) {
    api_->cudnnDestroyTensorDescriptor(desc_);
    throw;
  }
}

CudnnSoftmax::~CudnnSoftmax() {
  if (!desc_) return;
  cudnnStatus_t s = api_->cudnnDestroyTensorDescriptor(desc_);
  if (s != CUDNN_STATUS_SUCCESS)
    fprintf(stderr, "ktune: warning: cudnnDestroyTensorDescriptor failed: %s\n", status_text(api_, s).c_str());
}

CudnnSoftmax::CudnnSoftmax(CudnnSoftmax&& o) noexcept
    : api_(o.api_), handle_(o.handle_), desc_(std::exchange(o.desc_, nullptr)), dtype_(o.dtype_) {}

CudnnSoftmax& CudnnSoftmax::operator=(CudnnSoftmax&& o) noexcept {
  std::swap(api_, o.api_);
  std::swap(handle_, o.handle_);
  std::swap(desc_, o.desc_);
  std::swap(dtype_, o.dtype_);
  return *this;
}

void CudnnSoftmax::run(const void* x, void* y, cudaStream_t stream) {
  if (!desc_) throw Error("CudnnSoftmax::run on a moved-from object");
  KTUNE_CUDNN_CALL(*api_, cudnnSetStream, handle_, stream);
  // The scaling factors are float for half, bfloat16 and float tensors (double only for double).
  float alpha = 1.0f, beta = 0.0f;
  KTUNE_CUDNN_CALL(*api_, cudnnSoftmaxForward, handle_, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha,
                   desc_, x, &beta, desc_, y);
}

// ---- CudnnNorm ----

struct CudnnNorm::Impl {
  const CudnnApi* api = nullptr;
  cudnnHandle_t handle = nullptr;
  CudnnNormKind kind = CudnnNormKind::layer_norm;
  bool with_bias = false;

  // Declared in build order: members are destroyed in reverse, the plan before what it uses.
  BackendDescriptor x, scale, bias, epsilon_tensor, y, mean, inv_variance;
  BackendDescriptor operation;
  BackendDescriptor graph;
  std::vector<BackendDescriptor> heuristics;
  std::vector<BackendDescriptor> configs;
  BackendDescriptor plan;
  int64_t workspace = 0;
  std::string engine;

  // The variant pack of the last run(), kept while the pointers and epsilon stay the same: a
  // baseline timed in a loop should cost cuDNN's launch, not four descriptor calls each time.
  BackendDescriptor pack;
  std::vector<void*> pack_pointers;
  void* pack_workspace = nullptr;
  float epsilon = 0;  // by-value tensor: the pack points at this host float
};

CudnnNorm::CudnnNorm(const CudnnHandle& handle, CudnnNormKind kind, std::string_view dtype, int64_t rows,
                     int64_t cols, bool with_bias)
    : impl_(std::make_unique<Impl>()) {
  const std::string problem = fmt::format("{} {} {}x{}", to_string(kind), dtype, rows, cols);
  if (rows <= 0 || cols <= 0) throw Error(fmt::format("cuDNN {}: dimensions must be positive", problem));
  if (kind == CudnnNormKind::layer_norm && !with_bias)
    throw Error(fmt::format("cuDNN {}: cuDNN's LayerNorm node needs a bias", problem));
  const cudnnDataType_t type = cudnn_data_type(dtype);
  Impl& m = *impl_;
  m.api = &handle.api();
  m.handle = handle.get();
  m.kind = kind;
  m.with_bias = with_bias;
  const CudnnApi& api = *m.api;

  // Row-major [rows, cols] as 4-D {rows, cols, 1, 1}; scale and bias broadcast over rows; the
  // statistics one fp32 value per row; epsilon an fp32 scalar passed by value at execution.
  const Dims x_dims{rows, cols, 1, 1}, x_strides{cols, 1, cols, cols};
  const Dims param_dims{1, cols, 1, 1}, param_strides{cols, 1, cols, cols};
  const Dims stat_dims{rows, 1, 1, 1}, ones{1, 1, 1, 1};
  m.x = make_tensor(api, "x", kUidX, type, x_dims, x_strides);
  m.scale = make_tensor(api, "scale", kUidScale, type, param_dims, param_strides);
  if (with_bias) m.bias = make_tensor(api, "bias", kUidBias, type, param_dims, param_strides);
  m.epsilon_tensor = make_tensor(api, "epsilon", kUidEpsilon, CUDNN_DATA_FLOAT, ones, ones, /*by_value=*/true);
  m.y = make_tensor(api, "y", kUidY, type, x_dims, x_strides);
  if (kind == CudnnNormKind::layer_norm) m.mean = make_tensor(api, "mean", kUidMean, CUDNN_DATA_FLOAT, stat_dims, ones);
  m.inv_variance = make_tensor(api, "inv_variance", kUidInvVariance, CUDNN_DATA_FLOAT, stat_dims, ones);

  m.operation = BackendDescriptor(api, CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR, "norm forward operation");
  cudnnBackendNormMode_t mode = kind == CudnnNormKind::layer_norm ? CUDNN_LAYER_NORM : CUDNN_RMS_NORM;
  cudnnBackendNormFwdPhase_t phase = CUDNN_NORM_FWD_TRAINING;
  KTUNE_SET_ATTR(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode);
  KTUNE_SET_ATTR(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &phase);
  KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, m.x);
  KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, m.scale);
  if (m.bias) KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC, m.bias);
  KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, m.epsilon_tensor);
  KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, m.y);
  if (m.mean) KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_MEAN_DESC, m.mean);
  KTUNE_SET_DESC(m.operation, CUDNN_ATTR_OPERATION_NORM_FWD_INV_VARIANCE_DESC, m.inv_variance);
  m.operation.finalize();

  m.graph = BackendDescriptor(api, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "operation graph");
  cudnnBackendDescriptor_t op = m.operation.get();
  KTUNE_SET_ATTR(m.graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
  m.graph.set(kOperationGraphHandle, "CUDNN_ATTR_OPERATIONGRAPH_HANDLE", CUDNN_TYPE_HANDLE, 1, &m.handle);
  m.graph.finalize();

  // Heuristics rank the engine configs that claim the graph; the first whose plan finalizes on
  // this GPU wins. Mode A first (what cuDNN recommends), then FALLBACK (slower, wider support).
  std::vector<std::string> failures;
  for (cudnnBackendHeurMode_t heur_mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    const char* mode_name = heur_mode_name(heur_mode);
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    try {
      BackendDescriptor heur(api, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, fmt::format("engine heuristics {}", mode_name));
      KTUNE_SET_DESC(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, m.graph);
      KTUNE_SET_ATTR(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
      heur.finalize();
      int64_t count = 0;
      KTUNE_CUDNN_CALL(api, cudnnBackendGetAttribute, heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                       CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr);
      for (int64_t i = 0; i < count; ++i)
        configs.emplace_back(api, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engine config");
      for (const auto& c : configs) raw.push_back(c.get());
      int64_t got = 0;
      if (count > 0)
        KTUNE_CUDNN_CALL(api, cudnnBackendGetAttribute, heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                         CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got, raw.data());
      raw.resize(static_cast<size_t>(std::max<int64_t>(0, std::min(got, count))));
      m.heuristics.push_back(std::move(heur));
      if (raw.empty()) failures.push_back(fmt::format("heuristics {}: no engine configs", mode_name));
    } catch (const CudnnError& e) {
      failures.push_back(fmt::format("heuristics {}: {}", mode_name, e.what()));
      continue;
    }
    for (size_t i = 0; i < raw.size(); ++i) {
      try {
        BackendDescriptor plan(api, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "execution plan");
        plan.set(kExecutionPlanHandle, "CUDNN_ATTR_EXECUTION_PLAN_HANDLE", CUDNN_TYPE_HANDLE, 1, &m.handle);
        KTUNE_SET_ATTR(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw[i]);
        plan.finalize();
        int64_t n = 0;
        KTUNE_CUDNN_CALL(api, cudnnBackendGetAttribute, plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                         CUDNN_TYPE_INT64, 1, &n, &m.workspace);
        m.engine = fmt::format("{} (heuristics mode {}, config {} of {})", engine_of(api, raw[i]), mode_name, i + 1,
                               raw.size());
        m.plan = std::move(plan);
        m.configs = std::move(configs);
        return;
      } catch (const CudnnError& e) {
        failures.push_back(fmt::format("heuristics {} config {} ({}): {}", mode_name, i + 1, engine_of(api, raw[i]),
                                       e.what()));
      }
    }
  }
  std::string all;
  for (const auto& f : failures) all += (all.empty() ? "" : "; ") + f;
  throw CudnnError(fmt::format("cuDNN has no engine for {}: {}", problem, all), CUDNN_STATUS_NOT_SUPPORTED);
}

CudnnNorm::~CudnnNorm() = default;
CudnnNorm::CudnnNorm(CudnnNorm&&) noexcept = default;
CudnnNorm& CudnnNorm::operator=(CudnnNorm&&) noexcept = default;

size_t CudnnNorm::workspace_bytes() const { return impl_ ? static_cast<size_t>(impl_->workspace) : 0; }

const std::string& CudnnNorm::engine() const {
  static const std::string none;
  return impl_ ? impl_->engine : none;
}

void CudnnNorm::run(const void* x, const void* scale, const void* bias_or_null, float eps, void* y,
                    float* mean_or_null, float* rstd, cudaStream_t stream, void* workspace) {
  if (!impl_) throw Error("CudnnNorm::run on a moved-from object");
  Impl& m = *impl_;
  const CudnnApi& api = *m.api;
  const bool layer_norm = m.kind == CudnnNormKind::layer_norm;
  if (!x || !scale || !y || !rstd) throw Error("CudnnNorm::run: x, scale, y and rstd must be device pointers");
  if ((bias_or_null != nullptr) != m.with_bias)
    throw Error(m.with_bias ? "CudnnNorm::run: built with a bias, given none" : "CudnnNorm::run: built without a bias");
  if ((mean_or_null != nullptr) != layer_norm)
    throw Error(layer_norm ? "CudnnNorm::run: LayerNorm writes the mean, give it a buffer"
                           : "CudnnNorm::run: RMSNorm has no mean output");
  if (m.workspace > 0 && !workspace)
    throw Error(fmt::format("CudnnNorm::run: the plan needs {} bytes of workspace", m.workspace));

  std::vector<int64_t> uids;
  std::vector<void*> pointers;
  auto add = [&](int64_t uid, const void* p) {
    uids.push_back(uid);
    pointers.push_back(const_cast<void*>(p));
  };
  add(kUidX, x);
  add(kUidScale, scale);
  if (m.with_bias) add(kUidBias, bias_or_null);
  add(kUidEpsilon, &m.epsilon);  // host memory: the by-value scalar
  add(kUidY, y);
  if (layer_norm) add(kUidMean, mean_or_null);
  add(kUidInvVariance, rstd);

  // Rebuilt when anything it holds changes, epsilon included: whether cuDNN reads the scalar at
  // execution or copies it at finalization, the value used is then the one asked for.
  if (!m.pack || pointers != m.pack_pointers || workspace != m.pack_workspace || eps != m.epsilon) {
    m.pack = BackendDescriptor();
    m.epsilon = eps;
    BackendDescriptor pack(api, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "variant pack");
    KTUNE_SET_ATTR(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()),
                   uids.data());
    KTUNE_SET_ATTR(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR,
                   static_cast<int64_t>(pointers.size()), pointers.data());
    KTUNE_SET_ATTR(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace);
    pack.finalize();
    m.pack = std::move(pack);
    m.pack_pointers = std::move(pointers);
    m.pack_workspace = workspace;
  }
  KTUNE_CUDNN_CALL(api, cudnnSetStream, m.handle, stream);
  KTUNE_CUDNN_CALL(api, cudnnBackendExecute, m.handle, m.plan.get(), m.pack.get());
}

}  // namespace ktune::cuda
