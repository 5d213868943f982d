// cuDNN's LayerNorm and RMSNorm baselines through the graph API: one normalization-forward node
// (training phase, so it writes the statistics ktune's kernels write), an execution plan picked by
// cuDNN's heuristics, run with a variant pack kept while its pointers stay the same.
#include <fmt/format.h>

#include <vector>

#include "cuda/cudnn.hpp"
#include "cuda/detail/cudnn_api.hpp"
#include "cuda/detail/cudnn_graph.hpp"

namespace ktune::cuda {

using namespace detail;

namespace {

// Tensor UIDs of the norm graph: the variant pack names each pointer by these.
enum NormUid : int64_t { kUidX = 1, kUidScale, kUidBias, kUidEpsilon, kUidY, kUidMean, kUidInvVariance };

}  // namespace

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
