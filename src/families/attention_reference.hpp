// Attention computed the plain way, unfused: the scores S = Q·Kᵀ by cuBLAS into device memory, a
// softmax kernel over S in place, then O = P·V by cuBLAS. Twice, for two jobs:
//   attention_reference   in fp32 (QKᵀ from the inputs as stored with fp32 accumulation, the
//                         softmax with fp64 sums, P·V in pedantic fp32): the oracle every
//                         attention kernel is judged against;
//   UnfusedAttention      in the problem's dtype (tensor-core GEMMs with fp32 accumulation, an
//                         fp32-math softmax, S and P stored in the dtype), as a framework's math
//                         path computes it: a baseline, and the yardstick of the tolerance (a fused
//                         kernel may err at most about twice as much).
// Both work through batches of heads (head_batches) so the score matrices stay within a bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <cuda.h>

#include "cuda/resources.hpp"
#include "core/attention_shape.hpp"

namespace ktune {

class GpuContext;

// A batch of query heads whose Q rows, K/V rows and LSE rows each lie a constant stride apart, so
// one strided-batched GEMM covers them: query head f of the batch starts at element
// q_offset + f * q_stride of Q (and O), its K/V head at kv_offset + f * kv_stride, its LSE row at
// lse_offset + f * lse_stride. For grouped-query attention a batch holds one member of each group.
struct HeadBatch {
  int64_t q_offset = 0, kv_offset = 0, lse_offset = 0;
  int64_t count = 0;
  int64_t q_stride = 0, kv_stride = 0, lse_stride = 0;
};
// Every query head of `s` exactly once, in batches of at most `max_count` heads.
std::vector<HeadBatch> head_batches(const AttentionShape& s, int64_t max_count);
// Heads whose score matrices fit in `budget_bytes` at `score_bytes` a score (at least 1).
int64_t heads_within(const AttentionShape& s, int64_t score_bytes, int64_t budget_bytes);

// O (fp32, laid out as Q) and LSE (fp32, [batch, heads, seqlen_q]) from Q, K, V in `dtype`.
// Synchronizes the stream; allocates its own scratch (fp32 copies of the inputs, one batch of scores).
void attention_reference(GpuContext& gpu, const AttentionShape& s, const std::string& dtype, const void* q,
                         const void* k, const void* v, float* o_ref, float* lse_ref);

class UnfusedAttention {
 public:
  UnfusedAttention(GpuContext& gpu, const AttentionShape& s, const std::string& dtype);
  // Enqueues O (dtype, laid out as Q) and LSE on the GPU context's stream; no synchronization.
  void run(const void* q, const void* k, const void* v, void* o, float* lse);
  std::string name() const;
  // The score workspace run() needs: one batch of heads' S in the dtype.
  static int64_t workspace_bytes(const AttentionShape& s, const std::string& dtype);

 private:
  GpuContext& gpu_;
  AttentionShape shape_;
  std::string dtype_;
  std::vector<HeadBatch> batches_;
  cuda::DeviceBuffer scores_;
  CUfunction softmax_;
};

}  // namespace ktune
