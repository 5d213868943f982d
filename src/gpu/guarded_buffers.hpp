// The device memory of one workload, declared by role so that the worker can tell what a candidate
// did to memory it does not own. Every buffer sits between two guard bands of a known pattern;
// inputs and the reference are checksummed once they are written. After each checked run the
// worker asks what changed that must not have: a guard (a write before or past a buffer), an
// input or the reference (by checksum), counters a kernel must leave at zero. A candidate that
// touched anything is rejected, and the record names what it touched. (Checksumming costs a read
// of the inputs and the reference, about 0.2 ms at 8192^3, three times per candidate.)
//
// Why guards and not only a bigger allocation: a write one row past C used to land in allocation
// slack (undetected) or, at other shapes, in the fp32 reference, after which every correct
// candidate was judged against garbage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/resources.hpp"

namespace ktune {

class GpuContext;

enum class BufferRole {
  input,      // written by the workload, read by kernels: must never change
  output,     // poisoned before every checked run, compared with the reference
  inout,      // read and written in place: restored to what the workload wrote before every checked run
  workspace,  // scratch a kernel may write freely, inside its bounds
  counters,   // must be zero after every run (split-K arrival counters reset themselves)
  reference,  // the fp32 oracle: must never change
};

// Bytes of each guard band. Larger than a row of any output ktune allocates (a 16384-wide fp32
// row is 64 KiB), so an off-by-one-row write lands in the guard, not in a neighbour.
inline constexpr size_t kGuardBytes = size_t{1} << 20;
// Extra device memory a workload of `buffers` buffers takes for its guards.
inline constexpr int64_t guard_overhead(int buffers) { return int64_t{2} * buffers * int64_t{kGuardBytes}; }

class GuardedBuffers {
 public:
  explicit GuardedBuffers(GpuContext& gpu) : gpu_(gpu) {}
  // move-only (owns device memory)
  GuardedBuffers(const GuardedBuffers&) = delete;
  GuardedBuffers& operator=(const GuardedBuffers&) = delete;

  // Allocates `bytes` between two guard bands and returns the usable pointer (256-byte aligned).
  // Outputs start poisoned, counters and workspaces zeroed; inputs and the reference are the
  // workload's to fill before seal(). `name` is what a rejection says ("A", "C", "reference").
  void* add(std::string name, BufferRole role, size_t bytes);
  // Marks a buffer added before (an output or workspace) as one every launch starts from zeros:
  // zero_before_launch() clears it, and poison_outputs() zeroes rather than poisons it.
  void zero_before_every_launch(void* p);

  // Clears the buffers marked by zero_before_every_launch, on the stream (a workload calls this
  // before every launch it makes, timed ones included).
  void zero_before_launch();

  // Records the checksums of inputs, the reference and every guard, and keeps a copy of each inout
  // buffer: call once everything the workload writes itself is written.
  void seal();

  // 0xFF bytes over every output: NaN in fp16, bf16 and fp32, so an element nobody writes fails
  // (zeros for those marked zero_before_every_launch); inout buffers get back what the workload
  // wrote.
  void poison_outputs();

  // What a run changed that it must not have: guard bands, inputs, the reference, counters left
  // non-zero. One line per finding, empty when clean.
  std::vector<std::string> touched();

 private:
  struct Entry {
    std::string name;
    BufferRole role;
    cuda::DeviceBuffer storage;  // guard, data, guard
    size_t bytes = 0;
    uint64_t front_guard = 0, back_guard = 0, contents = 0;  // checksums at seal()
    bool zeroed = false;             // cleared before every launch
    cuda::DeviceBuffer pristine;     // inout: its contents at seal()
  };
  char* data(const Entry& e) const { return e.storage.as<char>() + kGuardBytes; }

  GpuContext& gpu_;
  std::vector<Entry> entries_;
  bool sealed_ = false;
};

}  // namespace ktune
