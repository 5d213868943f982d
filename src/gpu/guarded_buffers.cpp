#include "gpu/guarded_buffers.hpp"

#include <fmt/format.h>

#include "cuda/check.hpp"
#include "gpu/gpu_context.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// The guard pattern: a byte no kernel writes by accident (not 0, not 0xFF, not a small float).
constexpr int kGuardByte = 0xA7;

bool checksummed_contents(BufferRole role) {
  return role == BufferRole::input || role == BufferRole::reference || role == BufferRole::counters;
}

}  // namespace

void* GuardedBuffers::add(std::string name, BufferRole role, size_t bytes) {
  if (sealed_) throw Error("GuardedBuffers::add after seal()");
  Entry e;
  e.name = std::move(name);
  e.role = role;
  e.bytes = bytes;
  e.storage = cuda::DeviceBuffer(2 * kGuardBytes + bytes);
  cudaStream_t s = gpu_.stream();
  KTUNE_CUDA(cudaMemsetAsync(e.storage.get(), kGuardByte, kGuardBytes, s));
  KTUNE_CUDA(cudaMemsetAsync(e.storage.as<char>() + kGuardBytes + bytes, kGuardByte, kGuardBytes, s));
  if (role == BufferRole::output) KTUNE_CUDA(cudaMemsetAsync(data(e), 0xff, bytes, s));
  if (role == BufferRole::counters || role == BufferRole::workspace) KTUNE_CUDA(cudaMemsetAsync(data(e), 0, bytes, s));
  void* p = data(e);
  entries_.push_back(std::move(e));
  return p;
}

void GuardedBuffers::zero_before_every_launch(void* p) {
  for (Entry& e : entries_)
    if (data(e) == p) {
      if (e.role != BufferRole::output && e.role != BufferRole::workspace)
        throw Error(e.name + ": only outputs and workspaces are zeroed before every launch");
      e.zeroed = true;
      KTUNE_CUDA(cudaMemsetAsync(p, 0, e.bytes, gpu_.stream()));
      return;
    }
  throw Error("zero_before_every_launch: not a buffer of this workload");
}

void GuardedBuffers::zero_before_launch() {
  for (const Entry& e : entries_)
    if (e.zeroed) KTUNE_CUDA(cudaMemsetAsync(data(e), 0, e.bytes, gpu_.stream()));
}

void GuardedBuffers::seal() {
  for (Entry& e : entries_) {
    e.front_guard = gpu_.checksum(e.storage.get(), kGuardBytes);
    e.back_guard = gpu_.checksum(data(e) + e.bytes, kGuardBytes);
    if (checksummed_contents(e.role)) e.contents = gpu_.checksum(data(e), e.bytes);
    if (e.role == BufferRole::inout) {
      e.pristine = cuda::DeviceBuffer(e.bytes);
      KTUNE_CUDA(cudaMemcpyAsync(e.pristine.get(), data(e), e.bytes, cudaMemcpyDeviceToDevice, gpu_.stream()));
    }
  }
  KTUNE_CUDA(cudaStreamSynchronize(gpu_.stream()));
  sealed_ = true;
}

void GuardedBuffers::poison_outputs() {
  for (const Entry& e : entries_) {
    if (e.role == BufferRole::output)
      KTUNE_CUDA(cudaMemsetAsync(data(e), e.zeroed ? 0 : 0xff, e.bytes, gpu_.stream()));
    if (e.role == BufferRole::inout && sealed_)
      KTUNE_CUDA(cudaMemcpyAsync(data(e), e.pristine.get(), e.bytes, cudaMemcpyDeviceToDevice, gpu_.stream()));
  }
}

std::vector<std::string> GuardedBuffers::touched() {
  if (!sealed_) throw Error("GuardedBuffers checked before seal()");
  std::vector<std::string> findings;
  for (const Entry& e : entries_) {
    if (gpu_.checksum(e.storage.get(), kGuardBytes) != e.front_guard)
      findings.push_back(fmt::format("wrote before the start of {} (its front guard band changed)", e.name));
    if (gpu_.checksum(data(e) + e.bytes, kGuardBytes) != e.back_guard)
      findings.push_back(fmt::format("wrote past the end of {} (its back guard band changed)", e.name));
    if (!checksummed_contents(e.role) || gpu_.checksum(data(e), e.bytes) == e.contents) continue;
    if (e.role == BufferRole::counters)
      findings.push_back(fmt::format("left the {} non-zero (the next launch would start from stale counts)", e.name));
    else
      findings.push_back(fmt::format("changed the {} {} (its checksum changed)",
                                     e.role == BufferRole::input ? "input" : "fp32", e.name));
  }
  return findings;
}

}  // namespace ktune
