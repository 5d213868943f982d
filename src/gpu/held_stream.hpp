// The hold method (TimingMethod::hold): a kernel holds the stream while the host enqueues a batch
// of samples behind it, so the launches' host cost never shows as gaps between them. Released
// when the batch is enqueued, or on the way out of an error.
#pragma once

#include "gpu/gpu_context.hpp"

namespace ktune {

class HeldStream {
 public:
  HeldStream(GpuContext& gpu, bool hold) : gpu_(hold ? &gpu : nullptr) {
    if (gpu_) gpu_->hold_stream();
  }
  ~HeldStream() {
    if (gpu_) gpu_->release_stream();
  }
  HeldStream(const HeldStream&) = delete;
  HeldStream& operator=(const HeldStream&) = delete;

 private:
  GpuContext* gpu_;
};

}  // namespace ktune
