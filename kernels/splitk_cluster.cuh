// splitk_cluster.cuh — split-K's reduction when the blocks holding slices of one tile form
// thread-block clusters (sm_90 and newer): the cluster adds its blocks' tiles in distributed
// shared memory, each block one CLUSTER_K-th of the rows, so only one fp32 tile per cluster, not
// per block, goes through global memory. With more than one cluster per tile, the cluster sums
// meet in the workspace and each row piece is finished by the block that arrives last for it
// (splitk::last_to_arrive): the final sums are spread over CLUSTER_K blocks instead of one. Every
// sum is taken in a fixed order (cluster ranks, then clusters), so C does not depend on which
// block finishes first.
//
// Why: at 64x64x32768 the global-memory reduction of 32 slices made one block read every slice's
// tile at the end of the kernel while the rest of the GPU idled, and more slices (shorter, so
// more SMs stream K) made it worse (configs/gemm_mma.json's notes).
#pragma once

#include "hopper_async.cuh"
#include "splitk.cuh"

namespace splitk {

// Row pitch, in floats, of the fp32 tile a block leaves in its shared memory: 16-byte rows for
// the vector reads, and 8 floats of padding. An mma fragment's 8-byte stores go a half-warp at a
// time, 4 rows of 8 floats each; a pitch of 8 floats past a multiple of 32 puts those 4 rows on
// distinct banks (with no padding they share banks: 4-way conflicts; with 4 floats, 2-way).
__host__ __device__ constexpr int cluster_tile_pitch(int cols) { return cols + 8; }

// The four floats at shared address `addr` (16-byte aligned) of CTA `cta` in this cluster.
__device__ __forceinline__ float4 load_from_cta_v4(unsigned addr, unsigned cta) {
  float4 v;
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %4, %5;\n"
      "ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [remote];\n}\n"
      : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
      : "r"(addr), "r"(cta)
      : "memory");
  return v;
}

__device__ __forceinline__ void add_to(float4& sum, float4 v) {
  sum.x += v.x;
  sum.y += v.y;
  sum.z += v.z;
  sum.w += v.w;
}

// Called by every thread of every block of a grid (tiles, splits) whose clusters are CLUSTER_K
// blocks along y, each block holding its slice's ROWS x COLS fp32 sums in `tile` (its shared
// memory, row pitch cluster_tile_pitch(COLS)). partials: the workspace, room for gridDim.x *
// (gridDim.y / CLUSTER_K) tiles; counters: CLUSTER_K per tile (gridDim.x of them), zero at launch
// and left zero. store(row, col, sum) writes the finished sums of (row, col..col+3) of the tile.
template <int THREADS, int CLUSTER_K, int ROWS, int COLS, typename Store>
__device__ __forceinline__ void reduce_in_cluster(const float* tile, float* __restrict__ partials,
                                                  unsigned* __restrict__ counters, Store store) {
  constexpr int PITCH = cluster_tile_pitch(COLS);
  constexpr int PIECE_ROWS = ROWS / CLUSTER_K;  // the rows this block finishes
  constexpr int ROW_QUADS = COLS / 4;
  constexpr int QUADS = PIECE_ROWS * ROW_QUADS;
  static_assert(ROWS % CLUSTER_K == 0 && COLS % 4 == 0, "pieces of whole rows, rows of whole float4s");
  const unsigned rank = hopper_async::cluster_rank();
  const int clusters = gridDim.y / CLUSTER_K, cluster = blockIdx.y / CLUSTER_K;
  float* const slots = partials + (long long)blockIdx.x * clusters * ROWS * COLS;
  const unsigned base = hopper_async::smem_addr(tile);

  hopper_async::cluster_sync();  // every block's tile is in its shared memory
  for (int q = threadIdx.x; q < QUADS; q += THREADS) {
    const int row = rank * PIECE_ROWS + q / ROW_QUADS, col = q % ROW_QUADS * 4;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll
    for (int c = 0; c < CLUSTER_K; ++c) add_to(sum, load_from_cta_v4(base + 4 * (row * PITCH + col), c));
    if (clusters == 1)
      store(row, col, sum);
    else
      __stcg(reinterpret_cast<float4*>(slots + ((long long)cluster * ROWS + row) * COLS + col), sum);
  }
  // No block may leave while a peer still reads its shared memory: every block says it is done
  // reading now and waits for the others only on its way out, so the block that finishes the
  // clusters' sums below does not wait for its peers first.
  hopper_async::cluster_arrive();
  if (clusters == 1 || !last_to_arrive(counters + blockIdx.x * CLUSTER_K + rank, clusters)) {
    hopper_async::cluster_wait();
    return;
  }
  for (int q = threadIdx.x; q < QUADS; q += THREADS) {
    const int row = rank * PIECE_ROWS + q / ROW_QUADS, col = q % ROW_QUADS * 4;
    float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
    for (int c = 0; c < clusters; ++c)
      add_to(sum, __ldcg(reinterpret_cast<const float4*>(slots + ((long long)c * ROWS + row) * COLS + col)));
    store(row, col, sum);
  }
  if (threadIdx.x == 0) counters[blockIdx.x * CLUSTER_K + rank] = 0u;  // ready for the next launch
  hopper_async::cluster_wait();
}

}  // namespace splitk
