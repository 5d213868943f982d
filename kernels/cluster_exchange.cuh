// One float per block, traded among the blocks of a thread-block cluster in ROUNDS rounds: the
// row kernels that split a row over a cluster (norm.cu, softmax.cu) combine their blocks' partial
// sums and maxima this way.
//
// Each block pushes its value into every block's shared memory (st.async, which completes the
// receiver's mbarrier by 4 bytes) and waits on its own barrier for all CLUSTER values, then
// combines them in rank order, so every block gets the same bits. Reading the others' values after a
// cluster barrier instead costs that barrier's release, which compiles to a GPU-wide memory
// barrier (MEMBAR.ALL.GPU) and makes every block wait for the slowest, once per round.
//
// Use: `__shared__ ClusterExchange<CLUSTER, ROUNDS> ex;` then, in every thread, ex.init() early,
// ex.ready() before the first push, ex.push(r, value) from one thread of each block, ex.sum(r) (or
// ex.combine(r, op)) in every thread, ex.received() after the last of those and ex.finish() last: a block leaves only once
// every block has all its values, so none leaves with a push still in flight (which the PTX ISA
// does not promise to be safe). Each round's barrier is used once (phase 0). Compiled for sm_90
// and newer only.
#pragma once

#include "hopper_async.cuh"

template <int CLUSTER, int ROUNDS>
struct ClusterExchange {
  float slot[ROUNDS][CLUSTER];  // slot[r][q]: block q's value of round r
  unsigned long long bar[ROUNDS];

  // Thread 0 sets up each round's barrier: its own arrival, and CLUSTER values to come. The
  // cluster's relaxed arrival here (no memory barrier) pairs with ready()'s wait.
  __device__ __forceinline__ void init() {
    using namespace hopper_async;
    if (threadIdx.x == 0) {
#pragma unroll
      for (int r = 0; r < ROUNDS; ++r) {
        mbar_init(smem_addr(&bar[r]), 1);
        mbar_arrive_expect_tx(smem_addr(&bar[r]), CLUSTER * sizeof(float));
      }
      fence_mbarrier_init();
    }
    cluster_arrive_relaxed();
  }
  // Every block of the cluster has initialized its barriers: pushes may start.
  __device__ __forceinline__ void ready() { hopper_async::cluster_wait(); }

  // This block's value for round r, into slot[r][rank] of every block (this one included).
  __device__ __forceinline__ void push(int r, float value) {
    using namespace hopper_async;
    const unsigned rank = cluster_rank();
#pragma unroll
    for (int q = 0; q < CLUSTER; ++q) st_async_to_block(smem_addr(&slot[r][rank]), value, smem_addr(&bar[r]), q);
  }

  // Round r's values combined by `op` (a + b, fmaxf, ...) in rank order, once all have landed.
  template <typename Op>
  __device__ __forceinline__ float combine(int r, Op op) {
    hopper_async::mbar_wait(hopper_async::smem_addr(&bar[r]), 0);
    float total = slot[r][0];
#pragma unroll
    for (int q = 1; q < CLUSTER; ++q) total = op(total, slot[r][q]);
    return total;
  }
  __device__ __forceinline__ float sum(int r) {
    return combine(r, [](float a, float b) { return a + b; });
  }

  // This block has all its values (after the last sum); finish() waits until every block has.
  __device__ __forceinline__ void received() { hopper_async::cluster_arrive_relaxed(); }
  __device__ __forceinline__ void finish() { hopper_async::cluster_wait(); }
};
