// A family's cuDNN baseline, or nothing and why: cuDNN did not load (it is optional) or refused
// the problem. The handle lives as long as the operation that uses it.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "cuda/cudnn.hpp"
#include "util/error.hpp"

namespace ktune {

template <typename Op>
struct CudnnBaseline {
  std::optional<cuda::CudnnHandle> handle;
  std::optional<Op> op;  // set where cuDNN runs the problem
  std::string why_not;   // otherwise, why not

  // Op is built from the handle and `args`, on `stream`.
  template <typename... Args>
  explicit CudnnBaseline(cudaStream_t stream, Args&&... args) {
    if (!cuda::cudnn_available()) {
      why_not = cuda::cudnn_unavailable_reason();
      return;
    }
    try {
      handle.emplace(stream);
      op.emplace(*handle, std::forward<Args>(args)...);
    } catch (const Error& e) {
      op.reset();
      handle.reset();
      why_not = e.what();
    }
  }
};

}  // namespace ktune
