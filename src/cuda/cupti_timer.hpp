// Kernel durations from CUPTI's activity API: the GPU's own start/end timestamps for each kernel
// and memset, the numbers ncu and nsys report, as a cross-check on event timing (which also counts
// launch gaps). measure/kernel_samples.hpp turns the records into per-sample times.
//
// This file is the loading and the RAII session, so it lives in cuda/ with the driver loading; the
// arithmetic on the records is measurement logic and lives in bench/, testable without CUPTI.
// libcupti is loaded with dlopen on first use, never linked: ktune must start where it is missing.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "measure/kernel_samples.hpp"

namespace ktune::cuda {

// The libraries tried, in order: $KTUNE_CUPTI_LIBRARY alone when set (so a test or a user who
// names one library gets that one or an error, never a silent substitute); else libcupti.so.13,
// libcupti.so (found through the loader's path), then the toolkit's own copies.
std::vector<std::string> cupti_library_candidates();

// True when CUPTI loads, is a version whose records ktune can read, and can enable kernel
// activity records (which needs a driver). Never throws; `why` gets the reason when not. Cheap
// after the first call; while a CuptiKernelTimer exists, true without touching CUPTI.
bool cupti_available(std::string* why = nullptr);

// Collects kernel and memset activity records for as long as it lives. CUPTI's activity API is
// one per process, so one timer at a time: constructing a second throws.
class CuptiKernelTimer {
 public:
  // Enables CONCURRENT_KERNEL and MEMSET records (CONCURRENT_KERNEL, unlike KERNEL, does not
  // serialize kernels). Throws ktune::Error saying why when CUPTI cannot load or enable them.
  CuptiKernelTimer();
  ~CuptiKernelTimer();  // disables the records and drops what was not taken; warns, never throws
  // move-only
  CuptiKernelTimer(const CuptiKernelTimer&) = delete;
  CuptiKernelTimer& operator=(const CuptiKernelTimer&) = delete;
  CuptiKernelTimer(CuptiKernelTimer&& o) noexcept : owns_(std::exchange(o.owns_, false)) {}
  CuptiKernelTimer& operator=(CuptiKernelTimer&& o) noexcept {
    std::swap(owns_, o.owns_);
    return *this;
  }

  // Hands over every completed record. CUPTI fills in a record only when its work has finished,
  // so synchronize the stream (or the event after the last sample) first. Throws ktune::Error
  // when CUPTI reports a failure.
  void flush();
  // The records delivered so far (in CUPTI's order, not sorted), and forgets them.
  std::vector<ActivitySpan> take();
  // Records lost since construction: dropped by CUPTI for lack of buffer space, or delivered
  // without timestamps. Non-zero means some samples are short of a kernel: do not trust them.
  size_t lost() const;

 private:
  // The collector behind the callbacks is process-wide; this says whether this object is the one
  // session that owns it (false once moved from).
  bool owns_ = false;
};

}  // namespace ktune::cuda
