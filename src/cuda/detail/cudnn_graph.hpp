// cuDNN's graph (backend) API as ktune uses it: a move-only backend descriptor that names itself
// in messages, finalized tensor descriptors, and the engine a plan runs, for reports. Used by the
// graph-API baselines (cudnn_norm.cpp). Only for cuda/.
#pragma once

#include <cudnn.h>
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "cuda/detail/cudnn_api.hpp"

namespace ktune::cuda::detail {

// The handle attributes of the operation graph and the execution plan are marked deprecated in
// recent 9.x headers (a device-property descriptor is the new way, for building plans without a
// GPU). Every cuDNN 9 still takes them, and ktune builds its plans on the GPU it times anyway.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
constexpr cudnnBackendAttributeName_t kOperationGraphHandle = CUDNN_ATTR_OPERATIONGRAPH_HANDLE;
constexpr cudnnBackendAttributeName_t kExecutionPlanHandle = CUDNN_ATTR_EXECUTION_PLAN_HANDLE;
#pragma GCC diagnostic pop

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
                              Dims strides, bool by_value = false);

// "A", "B", "FALLBACK", "INSTANT": a heuristics mode, for messages.
const char* heur_mode_name(cudnnBackendHeurMode_t mode);

// "engine 12" from an engine config, for reports; "engine ?" when cuDNN does not say.
std::string engine_of(const CudnnApi& api, cudnnBackendDescriptor_t config);

}  // namespace ktune::cuda::detail
