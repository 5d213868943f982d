// cuDNN's fused scaled-dot-product attention (forward, with the softmax statistics) as the
// attention family's baseline: the library PyTorch's cuDNN SDPA backend calls. Built on NVIDIA's
// cudnn-frontend (header-only; scripts/setup.sh fetches it into .deps/cudnn-frontend), whose sdpa
// node cuDNN's heuristics map onto its fused flash-attention engines. The frontend is compiled
// with dynamic loading and handed the libcudnn that cuda/cudnn.hpp opened, so ktune still never
// links cuDNN. Where ktune was built without the frontend, or cuDNN does not load, or no engine
// takes the problem, the constructor throws a ktune::Error saying which, and the family runs
// without this baseline.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <string_view>

#include "cuda/cudnn.hpp"
#include "core/attention_shape.hpp"

namespace ktune::cuda {

// Whether this ktune was built with cudnn-frontend.
bool cudnn_sdpa_built();

class CudnnSdpa {
 public:
  // dtype "fp16" or "bf16". The causal mask is bottom-right aligned, as AttentionShape's is. The
  // handle must outlive this. Builds the plan (cuDNN's heuristics, mode A then the fallback
  // list): one per problem.
  CudnnSdpa(const CudnnHandle& handle, std::string_view dtype, const AttentionShape& shape);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;
  CudnnSdpa(CudnnSdpa&&) noexcept;
  CudnnSdpa& operator=(CudnnSdpa&&) noexcept;

  size_t workspace_bytes() const;
  // The plan cuDNN chose, for reports.
  const std::string& engine() const;

  // Enqueues O (laid out as Q) and LSE ([batch, heads, seqlen_q] fp32: cuDNN's softmax
  // statistics, the natural-log logsumexp of the scaled scores) on `stream`.
  void run(const void* q, const void* k, const void* v, void* o, float* lse, void* workspace,
           cudaStream_t stream);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune::cuda
