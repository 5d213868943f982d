// The bytes cuLaunchKernel reads for one launch: each argument's value (a pointer, a scalar, a
// TMA descriptor) kept at a stable, suitably aligned address, and the list of those addresses.
// One type for every way a kernel is launched (a workload's candidates, the runtime library's
// tuned kernels), so a family builds its argument list once (KernelFamily::kernel_arguments).
#pragma once

#include <cuda.h>

#include <cstring>
#include <deque>
#include <type_traits>
#include <vector>

namespace ktune {

class KernelArguments {
 public:
  template <typename T>
  void add(const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(Slot), "an argument is at most 128 bytes");
    Slot& s = slots_.emplace_back();
    std::memcpy(s.bytes, &value, sizeof(T));
    list_.push_back(s.bytes);
  }
  void add_pointer(const void* p) { add(p); }
  // Replaces argument `i` (a pointer passed in a descriptor's place, say).
  template <typename T>
  void set(size_t i, const T& value) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 128);
    std::memcpy(list_.at(i), &value, sizeof(T));
  }
  size_t size() const { return list_.size(); }
  void clear() {
    slots_.clear();
    list_.clear();
  }
  // For cuLaunchKernel's kernelParams; valid while this object lives and is not cleared.
  void** list() { return list_.data(); }
  std::vector<void*> as_vector() const { return list_; }

 private:
  // A CUtensorMap is 128 bytes, 64-byte aligned; a deque never moves what it holds.
  struct alignas(64) Slot {
    unsigned char bytes[128];
  };
  static_assert(sizeof(CUtensorMap) <= sizeof(Slot));
  std::deque<Slot> slots_;
  std::vector<void*> list_;
};

}  // namespace ktune
