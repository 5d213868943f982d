#include "cuda/detail/cudnn_graph.hpp"

#include "cuda/cudnn.hpp"

namespace ktune::cuda::detail {

BackendDescriptor make_tensor(const CudnnApi& api, const char* name, int64_t uid, cudnnDataType_t dtype, Dims dims,
                              Dims strides, bool by_value) {
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

}  // namespace ktune::cuda::detail
