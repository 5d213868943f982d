// gemm_wgmma.cu — tensor-core GEMM for Hopper (sm_90a): a persistent grid of CTAs, each with one
// producer warpgroup streaming TMA loads into an mbarrier ring and one or two wgmma consumer
// warpgroups, tile after tile; the epilogue goes through shared memory to TMA stores.
//
// Computes C = A·B with fp32 accumulation, rounded to OutT:
//   T __half or __nv_bfloat16   OutT the same type
//   T float                      TF32 tensor cores, OutT float
//   T __nv_fp8_e4m3              OutT __nv_bfloat16, C = scale_a * scale_b * A·B (per-tensor scales),
//                                or with BLOCK_SCALED a scale per 1x128 of A and per 128x128 of B
//                                (DeepSeek-V3's blocks), see "Block scales" below
//   C: M×N row-major (ldc = N).
//   A: M×K, row-major (K contiguous) when A_ROW_MAJOR, else column-major (M contiguous).
//   B: K×N, row-major (N contiguous) when B_ROW_MAJOR, else column-major (K contiguous).
// wgmma reads 32-bit and 8-bit operands from shared memory K-major only. fp8 takes A row-major
// and B column-major (cuBLASLt's fp8 takes that layout alone, too). Float operands that are
// M/N-major in memory (A column-major, B row-major) take wgmma's A from registers, which any
// layout can fill (see "Registers" below): A column-major is read into registers; with both
// row-major the roles swap (B's tile is wgmma's A, and the consumer computes its part of Cᵀ);
// with A column-major and B row-major, B is also transposed in shared memory on its way in (TMA
// lands it in a second ring as it lies, and three warps of the producer warpgroup rewrite each
// stage K-major into the ring wgmma reads: "Transposing" below).
//
// Arguments (tmA, tmB, C, M, N, K, tmC, scale_a, scale_b, partials, arrivals): tmA, tmB and tmC are 2-D tensor maps
// the host encodes (cuTensorMapEncodeTiled) over the whole operand, innermost (contiguous)
// dimension first, 128-byte swizzle, zero fill out of bounds. Their boxes, inner dimension first:
//   A row-major {BLOCK_K, BLOCK_M}      A column-major {SWIZZLE_ELEMS, BLOCK_K}
//   B row-major {SWIZZLE_ELEMS, BLOCK_K}  B column-major {BLOCK_K, BLOCK_N / CLUSTER_M}
// (SWIZZLE_ELEMS = 128 / sizeof(T): 64 16-bit, 32 float elements)
//   C           {128 / sizeof(OutT), C_ROWS}: a consumer's rows (BLOCK_M / NUM_CONSUMERS, or BLOCK_M with PINGPONG
//               or SWAP)
// (a 128-byte swizzle row holds 128 bytes of elements, so a 16-bit M- or N-contiguous tile
// arrives as BLOCK_M/64 or BLOCK_N/64 boxes, and C leaves as 128-byte-wide column panels; in a
// cluster each CTA fetches 1/CLUSTER_M of the B tile). C is the plain pointer the direct-store
// epilogue uses; scale_a and scale_b point to one float each and are read for fp8 only.
// partials and arrivals are split-K's and stream-K's workspace (SPLIT_K > 1 or STREAM_K only):
// room for TILES*CLUSTER_M*SPLIT_K*BLOCK_M*BLOCK_N floats (stream-K: CTAS*2*BLOCK_M*BLOCK_N), and
// TILES*CLUSTER_M*NUM_CONSUMERS counters that are zero at launch (the kernel leaves them zero
// again); the split tail (STREAM_K 3) needs both for the partial wave's tiles only, not TILES.
// TMA needs every row stride to be a multiple of 16 bytes (lda, ldb and ldc). Any M, N, K >= 1
// otherwise: TMA zero-fills what lies past the edges of A and B and clips the stores of C (a CTA
// whose rows lie wholly past M still fetches its share of B for its cluster).
// ktune_gemm_wgmma_cp_async, the same kernel for A and B rows that are 8-byte aligned only (fp8
// with K = 4104, fp16 with K = 1004; its config takes fp8 alone, see configs/
// gemm_wgmma_cp_async.json): A and B are plain pointers, the producer warpgroup copies
// each stage with cp.async in 8-byte pieces into the layout TMA would give (zero fill past the
// edges), CLUSTER_M 1 and no transposed float operand; C as above.
//
// Launch: 1-D grid of CTAS = min(TILES * SPLIT_K, BLOCKS_PER_SM * SMs / CLUSTER_M) * CLUSTER_M blocks
// (with STREAM_K the whole BLOCKS_PER_SM * SMs / CLUSTER_M * CLUSTER_M),
// TILES = cdiv(M, CLUSTER_M*BLOCK_M) * cdiv(N, BLOCK_N) (the cluster shape is compiled in: plain
// launches form the clusters), of (NUM_CONSUMERS+1)*128 threads and
// NUM_STAGES*(BLOCK_M+BLOCK_N)*BLOCK_K*sizeof(T) + the raw ring of a transposed float operand
// (NUM_STAGES*BLOCK_M or BLOCK_N*BLOCK_K*4 for each) + the C staging memory of EPILOGUE (below) +
// SMEM_SLACK bytes of dynamic shared memory (the slack aligns the tiles to 1024 bytes, the
// swizzle period, and holds the mbarriers).
//
// Tunables (names as in configs/gemm_wgmma.json, which restates every constraint below):
//   BLOCK_M        rows of the block tile: 64 or 128 per consumer warpgroup (with SWAP every consumer takes
//                  all of them as wgmma's N).
//   BLOCK_N        columns of the block tile and the N of each wgmma (with SWAP, BLOCK_N / NUM_CONSUMERS is
//                  its M): 64, 128, 192 or 256 (192:
//                  96 tiles of 128x192 fill 1536^2 where 128x256 leaves 60 of 132 SMs idle).
//   BLOCK_K        k depth of one stage: one 128-byte swizzle row (64 16-bit, 32 float, 128 fp8).
//   NUM_STAGES     depth of the shared-memory ring, >= 2.
//   NUM_CONSUMERS  consumer warpgroups, 1 or 2; each owns WG_M = BLOCK_M/NUM_CONSUMERS rows of a
//                  tile (cooperative; with SWAP BLOCK_N/NUM_CONSUMERS columns, a multiple of 64)
//                  and keeps WG_M*BLOCK_N/128 fp32 accumulators per thread (<= 128).
//   PINGPONG       0 or 1 (with NUM_CONSUMERS 2, data-parallel, 16-bit or fp8 operands): the
//                  two consumers take the CTA's tiles in turns, each a whole tile (WG_M = BLOCK_M),
//                  so that one stores its tile while the other's main loop keeps the tensor
//                  cores busy (CUTLASS's pingpong); a 128-row tile up to 192 wide holds 144-192
//                  accumulators a thread, past a cooperative consumer's 128. The ring holds their tiles' k tiles in the
//                  order of the walk; each consumer waits on its own tiles' stages and skips the
//                  other's. EPILOGUE 1 stages both consumers' tiles: 2*BLOCK_M*BLOCK_N*sizeof(OutT).
//   GROUP_M        rows of cluster tiles walked together (Triton's grouped order), as gemm_mma;
//                  the persistent CTAs take consecutive tiles of that order, so a wave of them
//                  shares panels of A and B in L2.
//   CLUSTER_M      1 or 2: CTAs of a thread-block cluster, stacked along M, that share one B tile.
//                  Each fetches 1/CLUSTER_M of it and the copy engine multicasts it to all,
//                  which cuts the operand traffic from L2 by B's share. With row-major B,
//                  BLOCK_N/SWIZZLE_ELEMS must divide by CLUSTER_M.
//   BLOCKS_PER_SM  1 or 2: the __launch_bounds__ occupancy; with 2 (shared memory permitting, and
//                  NUM_CONSUMERS 1) one block's epilogue overlaps the other's main loop.
//   EPILOGUE       0: store straight from the accumulator registers (guarded 2-element stores);
//                  1: write the tile to shared memory (stmatrix for 16-bit C), then one thread
//                  per consumer issues TMA stores, which run while the next tile's main loop
//                  starts. 1 costs BLOCK_M*BLOCK_N*sizeof(OutT) bytes of shared memory (twice that
//                  with PINGPONG: each consumer stages its own tile).
//                  2: as 1, one 128-byte column panel at a time through two alternating slots
//                  (BLOCK_M*256 bytes, twice that with PINGPONG), which leaves room for a deeper ring (4 stages of
//                  128×256×64 16-bit tiles instead of 3) at the cost of a wait per panel.
//   SPLIT_K        units of work per tile, each over 1/SPLIT_K of the k tiles: for shapes with
//                  fewer tiles than SMs (small M, decode) and long K. Each unit leaves fp32
//                  partial sums in global memory; the last to finish a tile adds them up and
//                  stores C.
//   STREAM_K       0, 1 or 2: stream-K. The tiles' k tiles, laid end to end (tile after tile in
//                  grouped order), are cut into one equal range per cluster of the full grid,
//                  so one or two waves of tiles that would leave SMs idle (72 tiles on 132
//                  SMs) keep every SM busy to the end. A tile one range covers whole is stored
//                  directly; a tile split between ranges is summed by split-K's mechanism: each
//                  part leaves fp32 partials in a slot of its CTA (two per CTA: the part at the
//                  start of its range, the part at its end), and the last to arrive (counted in
//                  k tiles) adds the others', in the order of their ranges, and stores C.
//                  2: hybrid, for two waves of tiles or more: only one wave plus the partial
//                  last one is streamed (first), the other tiles are taken whole as without
//                  stream-K (5120^3 in 128x256 tiles: 800 tiles, 6.06 waves, which whole tiles
//                  would finish in 7).
//                  3: split tail, with SPLIT_K > 1, for more tiles than clusters: the tiles of the
//                  whole waves run whole; each tile of the partial last wave is split along K
//                  into SPLIT_K slices on as many clusters, summed by split-K's mechanism, so the
//                  last wave lasts 1/SPLIT_K of a tile. TF32 2304^3 in 256x128 tiles is 162
//                  tiles, a wave and 30 more, which whole tiles finish in two waves; in 4 slices
//                  it took 0.0802-0.0812 ms against 0.0963-0.0976 for the best whole tiles on an
//                  H200 (results/h200/split-tail-s38). Only the tail's tiles get partial slots
//                  and counters.
//
// Design. Each CTA walks the work units (tiles, or tiles × SPLIT_K) blockIdx/CLUSTER_M,
// + gridDim/CLUSTER_M, ..., or with STREAM_K 1 or 2 its cluster's range of k tiles (a static
// schedule: every CTA of a cluster walks the same work, which the shared B tile requires). The
// producer's ring runs on across tiles, so while the consumers finish one tile's epilogue the
// next tile's first stages are already loading. Warpgroup 0 is the producer: one thread waits
// until a stage is empty, arms its "full" mbarrier with the stage's byte count and issues the TMA
// copies, which complete the barrier themselves. The other warpgroups are consumers: each waits
// until a stage is full, issues the stage's wgmma (BLOCK_K*sizeof(T)/32 k-steps, times
// WG_M/64) as one commit group, and once the group before has retired
// (wgmma.wait_group 1, so one group is always queued behind the one running) each of its warps
// arrives on that earlier stage's "empty" mbarrier, in every CTA of the cluster (a stage may be
// refilled only when no CTA still reads the multicast B data it shares). setmaxnreg hands the
// producer's registers to the consumers, which hold the accumulators; it needs the register cap
// that __launch_bounds__ gives, or ptxas ignores it (warning C7508). Operands K-major in shared
// memory (A row-major, B column-major) take wgmma's default layout; M/N-major ones (A
// column-major, B row-major) set its transpose bit, which only 16-bit types allow.
//
// Registers (float operands that are M/N-major in memory). The tile arrives as TMA lands it, 32-row
// panels of BLOCK_K k rows, and each consumer thread loads its fragment of each k-step (two
// 16-byte loads for a pair of m64 slices) just before issuing that k-step's wgmma, one commit group
// a k-step, into one of two fragment buffers: the group before runs meanwhile, and the buffer's
// previous group has retired. The rows each thread holds are chosen for conflict-free loads
// (fragment_row); the epilogue places them. Shared-memory traffic is then what wgmma reading the
// tile itself would cost, where transposing it costs a second write and read of it. With both
// operands row-major (rr, SWAP) wgmma's M runs over the consumer's BLOCK_N / NUM_CONSUMERS
// columns of C (its panels of the B tile) and its N over all BLOCK_M rows of A, so each thread
// holds 4 (2) consecutive columns of C at each of its rows: 16-byte stores, straight (EPILOGUE 0)
// or through the staged tile (EPILOGUE 1). Splitting the columns rather than the rows keeps each
// consumer's fragment loads to its own half of the B tile and reads A's tile once a k-step with
// one m64n256 wgmma in a 256 x 128 tile: cuBLAS's TF32 kernel for this layout
// (sm90_xmma_gemm_..._tilesize128x256x32_warpgroupsize2x1x1) splits so. At 5888^3 ncu had it
// issue half the wgmma instructions of ktune's winner then (m64n256 against m64n128, in a
// 128 x 128 tile two CTAs an SM) for as many shared-memory wavefronts, its tensor pipe 90% busy
// against 83%, in 0.92 times the cycles (results/h200/tf32-split-n-s41, call 1).
//
// Transposing (B row-major with A column-major, TF32). A stage of such an operand arrives,
// as a 16-bit M/N-major one would, in 32-wide panels of BLOCK_K rows, into a "raw" ring beside
// the operand rings; its own mbarrier ("raw full") counts the bytes. Warps 1-3 of the producer
// warpgroup wait for it, rewrite the stage K-major (rows of 32 k values, 128-byte swizzled: the
// layout TMA gives a K-major operand) into the operand ring in 4x4 blocks (four 16-byte loads,
// four 16-byte stores), fence the writes for the async proxy, and each warp arrives on the
// stage's "full" barrier, which then counts those three arrivals beside the producer's. The raw
// stage needs no barrier of its own for reuse: it is refilled only after the consumers release
// the stage, which they read only after the transposers finished with it. Each 16-byte access
// of a quarter warp hits eight different bank groups (the rows' swizzle on the loads; on the
// stores, each lane writes its block's rows in the order j ^ (g/2), g its row group), so the
// rewrite runs at shared memory's full width: 8 bytes per element per stage against wgmma's own
// reads. The 2*ROWS blocks of a stage are dealt to the 96 transposer threads in turn, so some
// warps take one block more than others (64 rows: warp 1 two, warps 2 and 3 one); an even split
// would not shorten the slowest warp (128 blocks over three warps is still two per lane).
//
// Block scales (BLOCK_SCALED 1 or 2, fp8 only): C[m][n] = sum over k blocks kb of scale_a[kb*M + m] *
// scale_b[(n/128)*SB_LD + kb] * (A[m, kb-th 128 of K] · B[same, n]), SB_LD = cdiv(K, 128) rounded
// up to 4: cuBLASLt's VEC128_32F (A, M contiguous) and BLK128x128_32F (B) layouts, so one set of
// scales serves both. A k tile is exactly one k block (BLOCK_K = 128 fp8), so each consumer runs
// the tile's wgmma into a second set of accumulators that starts at zero, waits for them, and adds
// them to its sums times the row's and the column block's scales. The wait idles this warpgroup's
// tensor work; the other consumer (NUM_CONSUMERS 2) or block (BLOCKS_PER_SM 2) fills it, as
// long as the consumer's own work between its wait and its next wgmma is short. So the scales
// come with the stage, into a ring of their own in shared memory, and the consumer reads them
// from there while its wgmma run: loading them from global memory itself, a k tile ahead, put
// 30 instructions of addressing and a wait for the loads between the wait and the next wgmma
// (ncu's per-instruction stalls at 4096 x 4096 x 7168 on an H200). BLOCK_SCALED says who copies
// them: warp 1 with cp.async, each thread arriving on the stage's barrier as its copies land (1),
// or the TMA thread in bulk on the same barrier as its tiles (2; A's row of scales is
// contiguous). At 4096 x 7168 x 16384 ncu found the stage not yet full at every k tile with warp
// 1's copies. The bulk copies, measured together with the promotion moved before the wait for
// the next stage, raised the M = 4096 problems of suites/blockscaled.json (geometric mean 0.95x
// to 0.99-1.02x cuBLASLt) and left M <= 128 1-3% lower (results/h200/blockscaled-bulk-s39), so
// configs/gemm_wgmma.json picks 2 where M > 128. The copying producer copies them with its stage.
// Adding a tile's sums in while the next tile's wgmma run (wgmma.wait_group 1, two sets of sums)
// was tried twice. Across the k loop's back edge ptxas serializes the wgmma (C7514: it takes a
// group pending there as possibly either set); in straight-line turns of 2 or 4 k tiles it does
// not, but no candidate got faster (results/h200/blockscaled-turns-s25), so the sums are added
// after wait_group 0, as DeepGEMM and CUTLASS do.
//
// Run: `ktune sweep configs/gemm_wgmma.json` (sm_90a only; `ktune compile --config
// configs/gemm_wgmma.json --arch sm_90a -v` compiles every candidate without a GPU).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cp_async.cuh"
#include "hopper_async.cuh"
#include "tma.cuh"
#include "wgmma.cuh"
#include "tile_order.cuh"

namespace gemm_wgmma_detail {

using namespace hopper_async;
using namespace wgmma_ops;

constexpr int SWIZZLE_ROW = 128;   // bytes in one row of a 128-byte-swizzled tile
constexpr int SWIZZLE_ATOM = 1024; // 8 such rows: the period of the swizzle pattern
constexpr int SMEM_SLACK = 1024 + 256;  // alignment of the tiles, then the mbarriers

// Rounding fp32 results to the output type: pairs (4- or 8-byte aligned) and single elements.
template <typename OutT> struct Out;
template <> struct Out<__half> {
  static __device__ __forceinline__ unsigned pack(float x, float y) {
    const __half2 h = __floats2half2_rn(x, y);
    return *reinterpret_cast<const unsigned*>(&h);
  }
  static __device__ __forceinline__ void store2(__half* p, float x, float y) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(x, y);
  }
  static __device__ __forceinline__ void store1(__half* p, float x) { *p = __float2half_rn(x); }
};
template <> struct Out<__nv_bfloat16> {
  static __device__ __forceinline__ unsigned pack(float x, float y) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<const unsigned*>(&h);
  }
  static __device__ __forceinline__ void store2(__nv_bfloat16* p, float x, float y) {
    *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(x, y);
  }
  static __device__ __forceinline__ void store1(__nv_bfloat16* p, float x) {
    *p = __float2bfloat16_rn(x);
  }
};
template <> struct Out<float> {
  static __device__ __forceinline__ void store2(float* p, float x, float y) {
    *reinterpret_cast<float2*>(p) = make_float2(x, y);
  }
  static __device__ __forceinline__ void store1(float* p, float x) { *p = x; }
};

__host__ __device__ constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }
__host__ __device__ constexpr int imin(int a, int b) { return a < b ? a : b; }
__host__ __device__ constexpr int imax(int a, int b) { return a > b ? a : b; }

// Four 8×8 16-bit matrices to shared memory: lanes 8i..8i+7 give the row addresses of matrix i,
// and each thread's r[i] holds two adjacent elements of matrix i in the mma fragment layout
// (row lane/4, columns 2*(lane%4) and +1), which is the wgmma accumulator's layout too.
__device__ __forceinline__ void stmatrix_x4(unsigned addr, unsigned r0, unsigned r1, unsigned r2,
                                            unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
               "r"(r0), "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}
__device__ __forceinline__ void st_shared_v2(unsigned addr, float x, float y) {
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(addr), "f"(x), "f"(y) : "memory");
}
__device__ __forceinline__ float ld_shared_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ float4 ld_shared_v4(unsigned addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ void st_shared_v4(unsigned addr, float x, float y, float z, float w) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(x), "f"(y), "f"(z), "f"(w)
               : "memory");
}
__device__ __forceinline__ float element(const float4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// One stage of a float operand, ROWS (M or N) by 32 k, from the M/N-major layout TMA gives it
// (ROWS/32 panels of 32 k-rows of 128 bytes, 128-byte swizzled) to the K-major one wgmma reads
// (ROWS rows of 32 k, 128-byte swizzled), by `threads` threads numbered `t`. Block b (4 k x 4
// rows) is panel b/64, k group (b/8)%8, row group b%8 of the panel: the eight threads of a
// quarter warp take eight row groups of one k group, so their loads (one swizzled 128-byte row)
// and, with each lane's rows written in the order j ^ (g/2), their stores hit distinct banks.
template <int ROWS>
__device__ __forceinline__ void transpose_stage(unsigned raw, unsigned dst, int t, int threads) {
  constexpr int PANEL_BYTES = 32 * SWIZZLE_ROW;
  for (int b = t; b < 2 * ROWS; b += threads) {
    const int g = b % 8, kg = (b / 8) % 8, p = b / 64;
    float4 v[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int k = 4 * kg + i;
      v[i] = ld_shared_v4(raw + p * PANEL_BYTES + k * SWIZZLE_ROW + ((g ^ (k & 7)) << 4));
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int jj = j ^ (g >> 1);
      const int row = 32 * p + 4 * g + jj;
      st_shared_v4(dst + row * SWIZZLE_ROW + ((kg ^ (row & 7)) << 4), element(v[0], jj),
                   element(v[1], jj), element(v[2], jj), element(v[3], jj));
    }
  }
}

// wgmma's A from registers (float operands, M-major in shared memory: see "Registers" above).
// Which tile rows a thread's fragment rows stand for is free, as long as the epilogue knows: each
// thread takes 4 consecutive rows for a pair of m64 slices (2 for a single slice), so that one
// 16-byte (8-byte) load gives them at one k; a warp's rows are one 32-row panel (half of one),
// dealt so that the loads of each quarter warp (half warp), whose lanes differ in k, hit distinct
// 16-byte chunks under the tile's 128-byte swizzle (chunk c of k row k lies at c ^ (k % 8)).
// pair_chunk: g's chunk of the warp's panel, chunks 0 and 4 for lanes g = 0, 1 (a quarter warp).
// single_chunk: g's chunk of its warp's half panel, chunks c and c ^ 4 for g = 0-1 and 2-3.
__device__ __forceinline__ int pair_chunk(int g) { return (g >> 1) | ((g & 1) << 2); }
__device__ __forceinline__ int single_chunk(int warp, int g) {
  return (2 * (warp & 1) + (g >> 2)) ^ (((g >> 1) & 1) << 2);
}
// The tile row (0 .. 64*MI-1) that accumulator row (slice mi, half h) of thread (warp, lane) is.
template <int MI>
__device__ __forceinline__ int fragment_row(int mi, int h, int warp, int lane) {
  const int g = lane / 4;
  if (mi < MI / 2 * 2) return 128 * (mi / 2) + 32 * warp + 4 * pair_chunk(g) + 2 * (mi % 2) + h;
  return 64 * mi + 32 * (warp >> 1) + 4 * single_chunk(warp, g) + 2 * (g & 1) + h;
}
__device__ __forceinline__ uint4 ld_shared_u4(unsigned addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
  return v;
}
__device__ __forceinline__ uint2 ld_shared_u2(unsigned addr) {
  uint2 v;
  asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
  return v;
}
// The tf32 A fragments of k-step ks (k 8ks .. 8ks+7) of MI m64 slices from an M-major tile of
// 32-row panels (32 k rows of 128 bytes each, 128-byte swizzled): f[mi] = rows (mi, 0) and
// (mi, 1) at k 8ks + lane%4, then the same at k + 4 (wgmma's tf32 A layout).
template <int MI>
__device__ __forceinline__ void load_fragments(unsigned (&f)[MI][4], unsigned tile, int ks, int warp, int lane) {
  constexpr int PANEL = 32 * SWIZZLE_ROW;
  const int g = lane / 4;
#pragma unroll
  for (int kk = 0; kk < 2; ++kk) {
    const int k = 8 * ks + lane % 4 + 4 * kk;
    const unsigned row = tile + k * SWIZZLE_ROW;
#pragma unroll
    for (int p = 0; p < MI / 2; ++p) {
      const uint4 v = ld_shared_u4(row + (4 * p + warp) * PANEL + ((pair_chunk(g) ^ (k & 7)) << 4));
      f[2 * p][2 * kk] = v.x;
      f[2 * p][2 * kk + 1] = v.y;
      f[2 * p + 1][2 * kk] = v.z;
      f[2 * p + 1][2 * kk + 1] = v.w;
    }
    if constexpr (MI % 2 == 1) {
      const uint2 v = ld_shared_u2(row + (2 * (MI - 1) + (warp >> 1)) * PANEL +
                                   ((single_chunk(warp, g) ^ (k & 7)) << 4) + 8 * (g & 1));
      f[MI - 1][2 * kk] = v.x;
      f[MI - 1][2 * kk + 1] = v.y;
    }
  }
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int r = 0; r < 4; ++r) asm volatile("" : "+r"(f[mi][r])::"memory");  // loaded here, before the fence
}
// Consecutive outputs of one row of C from column `col` on (`left` columns remain in the row):
// one vector store when they are aligned and all in, else element by element.
__device__ __forceinline__ void store_run(float* row, int col, int left, float4 v) {
  if (left % 4 == 0 && col + 4 <= left) {
    *reinterpret_cast<float4*>(row + col) = v;
  } else {
    const float x[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (col + i < left) row[col + i] = x[i];
  }
}
__device__ __forceinline__ void store_run(float* row, int col, int left, float2 v) {
  if (left % 2 == 0 && col + 2 <= left) {
    *reinterpret_cast<float2*>(row + col) = v;
  } else {
    if (col < left) row[col] = v.x;
    if (col + 1 < left) row[col + 1] = v.y;
  }
}

// The work of one cluster, as (tile, k tiles [kt_begin, kt_end)) pieces, the same sequence for
// the producer, the transposers and the consumers. Without STREAM_K: units (a tile, or one of
// its SPLIT_K k slices) cluster, cluster + clusters, ...; with STREAM_K 1 or 2: the cluster's
// equal share of the stream-K tiles' k tiles laid end to end, cut at tile boundaries. STREAM_K 1
// streams every tile; STREAM_K 2 (hybrid) streams only the first `streamed` tiles, one wave plus
// the partial last one, and then takes the rest whole, data-parallel, streamed + cluster,
// + clusters, ...: the partial wave is spread over every SM while most tiles keep their direct
// store. STREAM_K 3 (split tail) walks units as split-K does, but splits only the tiles past the
// whole waves (`whole` on): units [0, whole) are whole tiles, the rest SPLIT_K k slices of a tail
// tile each.
template <int SPLIT_K, int STREAM_K>
struct WorkWalk {
  static constexpr bool STREAMED = STREAM_K == 1 || STREAM_K == 2;
  long long pos, end;
  int stride, k_tiles;
  int streamed = 0;  // stream-K: the tiles whose k tiles are shared out
  // `whole`: the hybrid's next data-parallel tile (it moves), or the split tail's first tail tile
  // (fixed); `tiles`: the end of them.
  int whole = 0, tiles = 0;
  int split = 0;  // split-K and the split tail: the k slice of the last unit next() gave
  __device__ WorkWalk(int cluster, int clusters, int tiles_, int k_tiles_) : k_tiles(k_tiles_), tiles(tiles_) {
    if (STREAMED) {
      streamed = streamed_tiles(clusters, tiles);
      pos = range_begin(cluster, clusters, streamed, k_tiles);
      end = range_begin(cluster + 1, clusters, streamed, k_tiles);
      whole = streamed + cluster;
      stride = clusters;
    } else {
      if (STREAM_K == 3) whole = tiles / clusters * clusters;
      pos = cluster;
      end = whole + static_cast<long long>(tiles - whole) * SPLIT_K;
      stride = clusters;
    }
  }
  // Stream-K: how many tiles (the first ones) are streamed: all, or for the hybrid one wave and
  // the partial wave where there are two waves or more.
  static __device__ int streamed_tiles(int clusters, int tiles) {
    if (STREAM_K != 2 || tiles < 2 * clusters) return tiles;
    return clusters + tiles % clusters;
  }
  // Stream-K: where cluster c's range of the streamed tiles' k tiles starts, and which cluster's
  // range holds k tile `it`.
  static __device__ long long range_begin(int c, int clusters, int streamed, int k_tiles) {
    return static_cast<long long>(c) * streamed * k_tiles / clusters;
  }
  static __device__ int range_of(long long it, int clusters, int streamed, int k_tiles) {
    const long long total = static_cast<long long>(streamed) * k_tiles;
    const long long c = ((it + 1) * clusters - 1) / total;
    return static_cast<int>(c < clusters - 1 ? c : clusters - 1);
  }
  __device__ bool next(int& tile, int& kt_begin, int& kt_end) {
    if (STREAMED) {
      if (pos < end) {
        tile = static_cast<int>(pos / k_tiles);
        kt_begin = static_cast<int>(pos % k_tiles);
        kt_end = static_cast<int>(kt_begin + end - pos < k_tiles ? kt_begin + end - pos : k_tiles);
        pos += kt_end - kt_begin;
        return true;
      }
      if (STREAM_K != 2 || whole >= tiles) return false;
      tile = whole, kt_begin = 0, kt_end = k_tiles;
      whole += stride;
      return true;
    }
    if (pos >= end) return false;
    if (pos < whole) {  // split tail: a tile of the whole waves
      tile = static_cast<int>(pos), split = 0, kt_begin = 0, kt_end = k_tiles;
      pos += stride;
      return true;
    }
    tile = whole + static_cast<int>((pos - whole) / SPLIT_K);
    split = static_cast<int>((pos - whole) % SPLIT_K);
    kt_begin = split * k_tiles / SPLIT_K;
    kt_end = (split + 1) * k_tiles / SPLIT_K;
    pos += stride;
    return true;
  }
};

// Where the producer warpgroup gets a stage's operands from: tensor maps the copy engine reads
// (ktune_gemm_wgmma), or plain pointers whose rows the warpgroup copies itself with cp.async
// (ktune_gemm_wgmma_cp_async: for leading dimensions that are not a multiple of 16 bytes, which
// TMA cannot take, but are of 8).
struct TmaOperands {
  const CUtensorMap* a;
  const CUtensorMap* b;
  static constexpr bool copied = false;
};
template <typename T>
struct CopiedOperands {
  const T* a;
  const T* b;
  static constexpr bool copied = true;
};


// One operand tile of a stage, copied by the 128 threads of the producer warpgroup in 8-byte
// pieces into the layout TMA would give it: OUTER rows of INNER_BYTES contiguous bytes (a K-major
// tile: BLOCK_M or BLOCK_N rows of one 128-byte swizzle row; an M/N-major one: BLOCK_K rows of
// BLOCK_M or BLOCK_N elements, stored as 128-byte-wide panels of OUTER rows), 128-byte swizzled.
// src is the tile's first element, rows ld_bytes apart; rows from outer_left on and bytes from
// inner_left on lie past the matrix and are zero-filled (both extents are multiples of 8 bytes,
// so a piece is wholly in or out). Consecutive threads take consecutive pieces of a row, so a
// warp reads whole 128-byte lines.
template <int OUTER, int INNER_BYTES>
__device__ __forceinline__ void copy_tile(unsigned dst, const char* src, long long ld_bytes, int outer_left,
                                          int inner_left, int tid) {
  constexpr int ROW_PIECES = INNER_BYTES / 8;
  constexpr int PIECES = OUTER * ROW_PIECES;
  static_assert(PIECES % 128 == 0, "a tile is a whole number of pieces per thread");
#pragma unroll 4
  for (int p = tid; p < PIECES; p += 128) {
    const int r = p / ROW_PIECES, b = (p % ROW_PIECES) * 8;
    const bool in = r < outer_left && b < inner_left;
    const unsigned at = dst + (b / SWIZZLE_ROW) * (OUTER * SWIZZLE_ROW) + r * SWIZZLE_ROW +
                        ((((b % SWIZZLE_ROW) >> 4) ^ (r & 7)) << 4) + (b & 15);
    async_copy::cp_async_ca<8, 1>(at, in ? src + r * ld_bytes + b : src, in ? 8 : 0);
  }
}

}  // namespace gemm_wgmma_detail

// The kernel's whole body, for either source of operands (Operands: TmaOperands or
// CopiedOperands<T>); the two entry points at the end of the file differ in their arguments alone.
template <typename T, typename OutT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_STAGES, int NUM_CONSUMERS, int GROUP_M, int CLUSTER_M,
          int BLOCKS_PER_SM, int EPILOGUE, int SPLIT_K, int STREAM_K, int BLOCK_SCALED, int PINGPONG, typename Operands>
__device__ __forceinline__ void ktune_gemm_wgmma_body(const Operands ops, OutT* __restrict__ C, int M, int N, int K,
                                                      const CUtensorMap* tmC, const float* __restrict__ scale_a,
                                                      const float* __restrict__ scale_b, float* __restrict__ partials,
                                                      unsigned* __restrict__ arrivals) {
  using namespace gemm_wgmma_detail;
  using namespace tma;
  constexpr Kind KIND = OperandKind<T>::value;
  constexpr int E = sizeof(T);
  constexpr int OE = sizeof(OutT);
  constexpr int CHUNK = SWIZZLE_ROW / E;           // elements in one swizzle row
  // Rows of one consumer warpgroup: its share of the tile, or with PINGPONG the whole tile.
  constexpr int WG_M = PINGPONG ? BLOCK_M : BLOCK_M / NUM_CONSUMERS;
  // Float operands that are M/N-major in memory (see "Registers" above): with A column-major the
  // consumers read A's tile into registers; with both row-major (SWAP) B's tile is wgmma's A, read
  // into registers, and A's (K-major) tile its B, so the accumulators hold Cᵀ; with A column-major
  // and B row-major, B is transposed in shared memory as well.
  constexpr bool SWAP = E == 4 && A_ROW_MAJOR && B_ROW_MAJOR;
  constexpr bool A_REGS = E == 4 && !A_ROW_MAJOR;
  constexpr bool REGS = SWAP || A_REGS;            // wgmma's A from registers
  constexpr bool TRANS_B = E == 4 && B_ROW_MAJOR && !A_ROW_MAJOR;
  // With SWAP the consumers split the tile's columns, not its rows: each takes BLOCK_N /
  // NUM_CONSUMERS columns of C as wgmma's M and all BLOCK_M rows as its N, so a 256 x 128 tile
  // runs one m64n256 wgmma a consumer and k-step, where splitting rows ran two m64n128, each
  // reading the consumer's rows of A's tile again, and both consumers loaded all of B's tile into
  // registers (see "Registers" above).
  constexpr int WM = SWAP ? BLOCK_N / NUM_CONSUMERS : WG_M;  // wgmma's M extent per consumer (C's columns with SWAP)
  constexpr int WN = SWAP ? BLOCK_M : BLOCK_N;               // and its N
  // The consumer's rows and columns within the tile's operands and C: 0 when each consumer takes
  // whole tiles (PINGPONG), and rows or columns as it splits them.
  constexpr int CONSUMER_ROWS = PINGPONG || SWAP ? 0 : WG_M;
  constexpr int CONSUMER_COLS = SWAP && NUM_CONSUMERS > 1 ? WM : 0;  // a lone consumer's offsets fold away
  // A consumer's share of C: its rows and its columns (the epilogue's tile).
  constexpr int C_ROWS = SWAP ? BLOCK_M : WG_M;
  constexpr int C_COLS = SWAP ? WM : BLOCK_N;
  constexpr int MI = WM / 64;                      // m64 wgmma per k-step
  constexpr int KSTEPS = BLOCK_K * E / 32;         // k-steps per stage: each reads 32 bytes of K
  constexpr int ACC = WN / 2;                      // fp32 accumulators per thread per m64
  constexpr int FRAG_REGS = REGS ? 2 * MI * 4 : 0;  // A fragments, two k-steps' worth
  constexpr int A_STAGE = BLOCK_M * BLOCK_K * E;
  constexpr int B_STAGE = BLOCK_N * BLOCK_K * E;
  constexpr int PANEL = BLOCK_K * SWIZZLE_ROW;     // one CHUNK-wide M/N panel of an M/N-major tile
  constexpr int C_PANEL = C_ROWS * SWIZZLE_ROW;    // one 128-byte-wide column panel of C
  constexpr int C_PANEL_COLS = SWIZZLE_ROW / OE;
  // Whole column panels of one consumer's C tile, and the columns past them (a tile 144-240 wide
  // only), which go straight to memory from registers: a panel store would overrun the tile.
  constexpr int C_PANELS = C_COLS / C_PANEL_COLS;
  constexpr int C_TAIL_COLS = C_COLS - C_PANELS * C_PANEL_COLS;
  // One consumer's share of the C staging memory: its whole tile (EPILOGUE 1) or two panels.
  constexpr int C_WG_TILE = EPILOGUE == 2 ? 2 * C_PANEL : C_PANELS * C_PANEL;
  constexpr bool TRANSPOSES = TRANS_B;
  constexpr bool A_KMAJOR = A_ROW_MAJOR;           // as wgmma reads it from shared memory
  constexpr bool B_KMAJOR = !B_ROW_MAJOR || TRANS_B;
  constexpr int RAW_STAGE = TRANS_B ? B_STAGE : 0;
  constexpr int TRANSPOSER_WARPS = TRANSPOSES ? 3 : 0;
  constexpr bool COPIED = Operands::copied;  // the producer warpgroup copies the operands itself
  // Block scales go through shared memory a stage at a time, beside the operands: A's for the
  // CTA's BLOCK_M rows, then for each of the tile's column blocks (NSB, at most 2) the aligned
  // 16 bytes of B's scales that hold the k tile's (k blocks kt & ~3 to kt | 3), so that one bulk
  // copy fetches them. The copying producer copies them with its stage. Beside a TMA producer,
  // BLOCK_SCALED 1 has warp 1 copy them with cp.async, and 2 has the TMA thread issue them as
  // bulk copies on the stage's barrier with its tiles (where M is a multiple of 4, so that A's
  // rows of scales start on 16 bytes; otherwise warp 1 does).
  constexpr int NSB = cdiv(BLOCK_N, 128);  // B scale blocks a tile touches (it starts at a multiple of 64)
  constexpr int SCALE_STAGE = BLOCK_SCALED ? BLOCK_M + 4 * NSB : 0;  // floats a stage
  constexpr bool SCALE_WARP = BLOCK_SCALED && !COPIED;
  // Registers: __launch_bounds__ caps each thread at ENTRY_REGS (the register file split over
  // the blocks, in steps of 8); setmaxnreg then moves the producer's share to the consumers,
  // within the block's allocation. configs/gemm_wgmma.json restates these three.
  constexpr int THREADS = (NUM_CONSUMERS + 1) * 128;
  constexpr int ENTRY_REGS = imin(65536 / (THREADS * BLOCKS_PER_SM), 256) / 8 * 8;
  // A transposing producer holds a 4x4 block and its addresses: with 56 registers ptxas spilled
  // most split-K and stream-K TF32 candidates (their warps share the kernel's code paths). A
  // copying one holds its pieces' addresses; 64 as well.
  // The scale warp walks the work as the TMA thread does, with the scale pointers beside: 40.
  constexpr int PRODUCER_REGS = TRANSPOSES || COPIED ? 64 : BLOCKS_PER_SM == 1 || SCALE_WARP ? 40 : 24;
  constexpr int CONSUMER_REGS =
      imin(240, (ENTRY_REGS * (NUM_CONSUMERS + 1) - PRODUCER_REGS) / NUM_CONSUMERS / 8 * 8);
  constexpr int B_SLICE = BLOCK_N / CLUSTER_M;     // columns of the B tile this CTA fetches
  static_assert(!COPIED || (CLUSTER_M == 1 && !TRANSPOSES && !REGS && NUM_STAGES >= 3),
                "copied operands: no multicast (CLUSTER_M 1), no M/N-major float operand, a ring of 3 or more");
  static_assert(E != 1 || (A_ROW_MAJOR && !B_ROW_MAJOR),
                "fp8 operands must be K-major: A row-major, B column-major");
  static_assert(KIND == Kind::e4m3 ? OE == 2 : (E == 4 ? OE == 4 : sizeof(OutT) == sizeof(T)),
                "output type: T itself, bf16 for fp8");
  static_assert(NUM_CONSUMERS == 1 || NUM_CONSUMERS == 2, "NUM_CONSUMERS: 1 or 2");
  // fp32 (TF32) is left out: its staging path (float pairs, 32-column panels) has not run with it.
  static_assert(!PINGPONG || (NUM_CONSUMERS == 2 && SPLIT_K == 1 && STREAM_K == 0 && !BLOCK_SCALED && E != 4 &&
                              !COPIED),
                "PINGPONG: two consumers taking whole tiles of a data-parallel walk, 16-bit or fp8 operands");
  static_assert(WG_M == 64 || WG_M == 128, "WG_M (BLOCK_M / NUM_CONSUMERS, or BLOCK_M with PINGPONG): 64 or 128");
  // Tiles 144-240 wide (multiples of 16 that are not of 64) fill a last wave that whole panels
  // leave part idle (2560^3 fp8: 360 tiles of 128 x 144, 2.73 waves, where 128 x 256 makes 200, 1.52).
  // They take a B that is K-major in memory (a row-major B comes in 64-column panels); the staged
  // epilogues store their whole panels and the last columns directly (C_TAIL_COLS).
  static_assert(BLOCK_N == 64 || BLOCK_N == 128 || BLOCK_N == 192 || BLOCK_N == 256 ||
                    (BLOCK_N % 16 == 0 && BLOCK_N > 128 && BLOCK_N < 256),
                "BLOCK_N: 64, 128, 192, 256, or a multiple of 16 between 128 and 256");
  static_assert(BLOCK_N % 64 == 0 || (!B_ROW_MAJOR && E != 4 && !BLOCK_SCALED),
                "BLOCK_N not a multiple of 64: K-major 16-bit or fp8 B, per-tensor scales");
  // With two blocks an SM ptxas compiled the wgmma to the launch bound's registers (ENTRY_REGS,
  // 128): a 64 x 208 tile's 104 accumulators failed (C7602) where 64 x 192's 96 compiled. With
  // one it honours setmaxnreg: pingpong 128 x 192 tiles (192 accumulators, ENTRY_REGS 168) compile
  // without spills and pass.
  static_assert(BLOCKS_PER_SM == 1 || BLOCK_N % 64 == 0 || WG_M * BLOCK_N / 128 + 32 <= ENTRY_REGS,
                "BLOCK_N not a multiple of 64 with two blocks an SM: at most the launch bound's registers less 32 "
                "in accumulators");
  static_assert(BLOCK_K == CHUNK, "BLOCK_K: one 128-byte swizzle row");
  // More than 128 accumulators a thread: pingpong's whole 128-row tiles 144-192 wide, measured
  // (results/h200/pingpong-wide-s29); cooperative tiles keep to 128.
  static_assert((PINGPONG || MI * ACC <= 128) && MI * ACC + FRAG_REGS + 40 <= CONSUMER_REGS,
                "accumulators do not fit the consumer's registers");
  static_assert(!SWAP || EPILOGUE != 2, "SWAP stores C through registers or the whole staged tile");
  static_assert(!SWAP || (WM % 64 == 0 && WN <= 256), "SWAP: BLOCK_N / NUM_CONSUMERS a multiple of 64");
  static_assert(BLOCK_SCALED == 0 || ((BLOCK_SCALED == 1 || BLOCK_SCALED == 2) && KIND == Kind::e4m3),
                "block scales (BLOCK_SCALED 1: copied by warp 1, 2: by the TMA thread in bulk): fp8 operands");
  static_assert(!BLOCK_SCALED || 2 * MI * ACC + 40 <= CONSUMER_REGS,
                "block scales: the k tile's sums need as many registers again as the accumulators");
  static_assert(CLUSTER_M == 1 || CLUSTER_M == 2, "CLUSTER_M: 1 or 2");
  static_assert(BLOCKS_PER_SM == 1 || BLOCKS_PER_SM == 2, "BLOCKS_PER_SM: 1 or 2");
  // Two blocks of three warpgroups cap every thread at 80 registers at entry, and ptxas then
  // finds too few for the wgmma (error C7602), setmaxnreg notwithstanding.
  static_assert(BLOCKS_PER_SM == 1 || NUM_CONSUMERS == 1, "BLOCKS_PER_SM 2 needs NUM_CONSUMERS 1");
  static_assert(B_ROW_MAJOR ? B_SLICE % CHUNK == 0 : B_SLICE % 8 == 0,
                "the B tile must split into whole boxes across the cluster");
  static_assert(NUM_STAGES >= 2 && GROUP_M >= 1, "NUM_STAGES >= 2, GROUP_M >= 1");
  static_assert(EPILOGUE >= 0 && EPILOGUE <= 2, "EPILOGUE: 0, 1 or 2");
  static_assert(SPLIT_K >= 1, "SPLIT_K >= 1");
  static_assert(STREAM_K == 0 || ((STREAM_K == 1 || STREAM_K == 2) && SPLIT_K == 1) || (STREAM_K == 3 && SPLIT_K > 1),
                "STREAM_K: 0, 1 or 2 with SPLIT_K 1, or 3 with SPLIT_K > 1");
  constexpr bool STREAMED = WorkWalk<SPLIT_K, STREAM_K>::STREAMED;  // stream-K's ranges, not split-K's units
  static_assert(3 * NUM_STAGES * 8 + 8 * NUM_CONSUMERS <= SMEM_SLACK - 1024,
                "mbarriers and split-K flags must fit in the slack");

  // Cluster tiles (CLUSTER_M*BLOCK_M rows) in grouped order; this cluster takes every
  // `tile_stride`-th from its own index. CTA `rank` of the cluster takes the rank-th BLOCK_M
  // rows; past the edge of M it still fetches its share of B for the others, and stores nothing.
  const unsigned rank = CLUSTER_M == 1 ? 0 : cluster_rank();
  const int tiles_m = cdiv(M, CLUSTER_M * BLOCK_M), tiles_n = cdiv(N, BLOCK_N);
  const int tiles = tiles_m * tiles_n;
  const int cluster = blockIdx.x / CLUSTER_M, clusters = gridDim.x / CLUSTER_M;

  // Shared layout from the first 1024-byte boundary: NUM_STAGES A tiles, NUM_STAGES B tiles, the
  // raw ring of transposed operands (RAW_STAGE bytes a stage: A's, then B's), the C staging
  // memory (EPILOGUE 1, 2), the block scales' ring (SCALE_STAGE floats a stage), then NUM_STAGES
  // "full", "empty" and "raw full" mbarriers.
  extern __shared__ __align__(1024) unsigned char smem[];
  // With block scales, through a shuffle: ptxas then keeps the base (and the barriers' and
  // descriptors' addresses built from it) in registers, where otherwise it rebuilt them from the
  // CTA's cluster id at the top of every k tile, between the promotion and the next wgmma.
  const unsigned smem_base = (smem_addr(smem) + SWIZZLE_ATOM - 1) & ~unsigned(SWIZZLE_ATOM - 1);
  const unsigned a_tiles = BLOCK_SCALED ? __shfl_sync(0xffffffffu, smem_base, 0) : smem_base;
  const unsigned b_tiles = a_tiles + NUM_STAGES * A_STAGE;
  const unsigned raw_tiles = b_tiles + NUM_STAGES * B_STAGE;
  const unsigned c_tile = raw_tiles + NUM_STAGES * RAW_STAGE;
  const unsigned scale_ring = c_tile + (EPILOGUE != 0) * NUM_CONSUMERS * C_WG_TILE;
  const unsigned full_bar = scale_ring + NUM_STAGES * SCALE_STAGE * 4;
  const unsigned empty_bar = full_bar + 8 * NUM_STAGES;
  const unsigned raw_bar = empty_bar + 8 * NUM_STAGES;
  const unsigned last_flag = raw_bar + 8 * NUM_STAGES;  // per consumer: split-K's last arrival
  const int k_tiles = cdiv(K, BLOCK_K);
  // This cluster's work (WorkWalk): every role of the CTA walks the same sequence.
  const WorkWalk<SPLIT_K, STREAM_K> work_begin(cluster, clusters, tiles, k_tiles);
  // Block scales: one per 128 of K for each row of A (scale_a[kb * M + row]) and each 128 x 128
  // block of B (scale_b[nb * SB_LD + kb], rows of SB_LD = the k blocks rounded up to 4): the
  // layouts cuBLASLt's VEC128_32F and BLK128x128_32F read. A k tile is one k block. Thread t of
  // `threads` copies its share of k tile kt's scales for the CTA's rows from m0 and the tile's
  // column blocks from n0 into stage s of the ring (rows past M and blocks past N repeat the last).
  const int n_blocks = cdiv(N, 128), sb_ld = (cdiv(K, 128) + 3) / 4 * 4;
  const auto scale_b_at = [&](int n0, int j, int kt) {  // the 16 bytes of block j's that hold kt's
    return scale_b + static_cast<long long>(imin(n0 / 128 + j, n_blocks - 1)) * sb_ld + (kt & ~3);
  };
  const auto copy_scales = [&](int s, int kt, int m0, int n0, int t, int threads) {
#pragma unroll 1  // unrolled, the scale warp's addresses outgrow its 40 registers and spill
    for (int i = t; i < BLOCK_M + 4 * NSB; i += threads) {
      const float* src = i < BLOCK_M ? scale_a + static_cast<long long>(kt) * M + imin(m0 + i, M - 1)
                                     : scale_b_at(n0, (i - BLOCK_M) / 4, kt) + (i - BLOCK_M) % 4;
      async_copy::cp_async_ca<4, 1>(scale_ring + (s * SCALE_STAGE + i) * 4, src, 4);
    }
  };
  // The TMA thread's bulk copies need A's rows of scales at 16-byte boundaries.
  const bool bulk_scales = SCALE_WARP && BLOCK_SCALED == 2 && M % 4 == 0 &&
                           reinterpret_cast<unsigned long long>(scale_a) % 16 == 0 &&
                           reinterpret_cast<unsigned long long>(scale_b) % 16 == 0;

  if (threadIdx.x == 0) {
    for (int s = 0; s < NUM_STAGES; ++s) {
      // The producer's arrival and each transposer warp's, or each copying warp's; with block
      // scales, each thread of the scale warp's as its copies land.
      mbar_init(full_bar + 8 * s, COPIED ? 4 : 1 + TRANSPOSER_WARPS + (SCALE_WARP && !bulk_scales ? 32 : 0));
      // Each consumer warp (with PINGPONG, each warp of the one consumer that takes the stage's tile).
      mbar_init(empty_bar + 8 * s, CLUSTER_M * (PINGPONG ? 1 : NUM_CONSUMERS) * 4);
      mbar_init(raw_bar + 8 * s, 1);                      // the producer's expect_tx arrival
    }
    // Make the initialized barriers visible to the TMA unit (the async proxy) and the cluster.
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if (CLUSTER_M > 1)
    cluster_sync();  // no CTA may signal a peer's barriers before the peer initialized them
  else
    __syncthreads();

  if (threadIdx.x < 128) {
    // ---- producer warpgroup: one thread issues every TMA copy, tile after tile (with copied
    // operands, all four warps copy) ----
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
    if constexpr (COPIED) {
      // ---- copying producer: all four warps copy each stage, LAG stages in flight per thread.
      // cp.async writes shared memory through the generic proxy, and wgmma reads it through the
      // async proxy: each thread waits for its own copies of a stage, fences the proxies, and
      // its warp arrives on the stage's "full" barrier. Arriving LAG stages behind keeps that
      // many stages of copies in flight; LAG < NUM_STAGES, or the producer would wait for a
      // stage to be emptied that the consumers cannot yet have seen full.
      constexpr int LAG = NUM_STAGES - 2;
      const int tid = threadIdx.x;
      int s = 0, issued = 0, announced_s = 0;
      unsigned phase = 0;
      auto announce_oldest = [&]() {
        fence_proxy_async_shared();
        __syncwarp();
        if (tid % 32 == 0) mbar_arrive(full_bar + 8 * announced_s);
        if (++announced_s == NUM_STAGES) announced_s = 0;
      };
      WorkWalk<SPLIT_K, STREAM_K> work = work_begin;
      int tile, kt_begin, kt_end;
      while (work.next(tile, kt_begin, kt_end)) {
        const KtuneTile t = ktune_grouped_tile(tile, tiles_m, tiles_n, GROUP_M);
        const int m0 = t.m * BLOCK_M, n0 = t.n * BLOCK_N;
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mbar_wait(empty_bar + 8 * s, phase ^ 1);
          const int k0 = kt * BLOCK_K;
          const char* a = reinterpret_cast<const char*>(ops.a);
          const char* b = reinterpret_cast<const char*>(ops.b);
          if constexpr (A_ROW_MAJOR)  // rows of A along M, K contiguous (lda = K)
            copy_tile<BLOCK_M, SWIZZLE_ROW>(a_tiles + s * A_STAGE, a + (static_cast<long long>(m0) * K + k0) * E,
                                            static_cast<long long>(K) * E, M - m0, (K - k0) * E, tid);
          else  // rows along K, M contiguous (lda = M)
            copy_tile<BLOCK_K, BLOCK_M * E>(a_tiles + s * A_STAGE, a + (static_cast<long long>(k0) * M + m0) * E,
                                            static_cast<long long>(M) * E, K - k0, (M - m0) * E, tid);
          if constexpr (B_ROW_MAJOR)  // rows along K, N contiguous (ldb = N)
            copy_tile<BLOCK_K, BLOCK_N * E>(b_tiles + s * B_STAGE, b + (static_cast<long long>(k0) * N + n0) * E,
                                            static_cast<long long>(N) * E, K - k0, (N - n0) * E, tid);
          else  // rows of B along N, K contiguous (ldb = K)
            copy_tile<BLOCK_N, SWIZZLE_ROW>(b_tiles + s * B_STAGE, b + (static_cast<long long>(n0) * K + k0) * E,
                                            static_cast<long long>(K) * E, N - n0, (K - k0) * E, tid);
          if constexpr (BLOCK_SCALED) copy_scales(s, kt, m0, n0, tid, 128);
          asm volatile("cp.async.commit_group;\n" ::: "memory");
          if (++issued > LAG) {
            async_copy::cp_async_wait<LAG, 1>();
            announce_oldest();
          }
          if (++s == NUM_STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      async_copy::cp_async_wait<0, 1>();
      for (int left = issued < LAG ? issued : LAG; left > 0; --left) announce_oldest();
    } else if (threadIdx.x == 0) {
      prefetch_tensor_map(ops.a);
      prefetch_tensor_map(ops.b);
      int s = 0;
      unsigned phase = 0;
      WorkWalk<SPLIT_K, STREAM_K> work = work_begin;
      int tile, kt_begin, kt_end;
      while (work.next(tile, kt_begin, kt_end)) {
        const KtuneTile t = ktune_grouped_tile(tile, tiles_m, tiles_n, GROUP_M);
        const int m0 = (t.m * CLUSTER_M + rank) * BLOCK_M;
        const int n0 = t.n * BLOCK_N;
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mbar_wait(empty_bar + 8 * s, phase ^ 1);
          // Operands read as they arrive complete "full" themselves; transposed ones complete
          // "raw full", and the transposers then arrive on "full".
          constexpr int DIRECT_TX = A_STAGE + (TRANS_B ? 0 : B_STAGE);
          const unsigned bar = full_bar + 8 * s, raw = raw_bar + 8 * s;
          // Block scales by bulk copy: the CTA's rows of A's (none past M, whose rows of the ring
          // keep stale values that only rows never stored read) and B's 16 bytes a column block.
          const int scale_a_bytes = bulk_scales ? imax(0, imin(BLOCK_M, M - m0)) * 4 : 0;
          const int scale_bytes = bulk_scales ? scale_a_bytes + 16 * NSB : 0;
          if constexpr (DIRECT_TX > 0)
            mbar_arrive_expect_tx(bar, DIRECT_TX + scale_bytes);
          else
            mbar_arrive(bar);
          if constexpr (TRANSPOSES) mbar_arrive_expect_tx(raw, RAW_STAGE);
          const int k0 = kt * BLOCK_K;
          if constexpr (BLOCK_SCALED) {
            if (bulk_scales) {
              const unsigned dst = scale_ring + s * SCALE_STAGE * 4;
              if (scale_a_bytes > 0) bulk_load(dst, scale_a + static_cast<long long>(kt) * M + m0, scale_a_bytes, bar);
#pragma unroll
              for (int j = 0; j < NSB; ++j) bulk_load(dst + (BLOCK_M + 4 * j) * 4, scale_b_at(n0, j, kt), 16, bar);
            }
          }
          const unsigned raw_dst = raw_tiles + s * RAW_STAGE;
          const unsigned a_dst = a_tiles + s * A_STAGE, a_bar = bar;
          const unsigned b_dst = TRANS_B ? raw_dst : b_tiles + s * B_STAGE;
          const unsigned b_bar = TRANS_B ? raw : bar;
          if (A_ROW_MAJOR) {
            tma_load_2d(a_dst, ops.a, a_bar, k0, m0);
          } else {
#pragma unroll
            for (int i = 0; i < BLOCK_M / CHUNK; ++i)
              tma_load_2d(a_dst + i * PANEL, ops.a, a_bar, m0 + i * CHUNK, k0);
          }
          // This CTA's slice of B: panels [rank*B_SLICE/64, ...) of a row-major (N-contiguous)
          // tile, or rows [rank*B_SLICE, ...) of a K-contiguous one.
          if (B_ROW_MAJOR) {
#pragma unroll
            for (int j = 0; j < B_SLICE / CHUNK; ++j) {
              const int col = rank * B_SLICE + j * CHUNK;
              if (CLUSTER_M == 1)
                tma_load_2d(b_dst + j * PANEL, ops.b, b_bar, n0 + col, k0);
              else
                tma_load_2d_multicast(b_dst + (col / CHUNK) * PANEL, ops.b, b_bar, n0 + col, k0,
                                      (1u << CLUSTER_M) - 1);
            }
          } else {
            if (CLUSTER_M == 1)
              tma_load_2d(b_dst, ops.b, b_bar, k0, n0);
            else
              tma_load_2d_multicast(b_dst + rank * B_SLICE * SWIZZLE_ROW, ops.b, b_bar, k0,
                                    n0 + rank * B_SLICE, (1u << CLUSTER_M) - 1);
          }
          if (++s == NUM_STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    } else if (SCALE_WARP && !bulk_scales && threadIdx.x >= 32 && threadIdx.x < 64) {
      // ---- scale warp (warp 1): each stage's block scales, copied with cp.async, each thread
      // arriving on the stage's "full" barrier once its copies land; it runs ahead of the
      // consumers as the TMA thread does, so the scales' latency is off their path.
      int s = 0;
      unsigned phase = 0;
      WorkWalk<SPLIT_K, STREAM_K> work = work_begin;
      int tile, kt_begin, kt_end;
      while (work.next(tile, kt_begin, kt_end)) {
        const KtuneTile t = ktune_grouped_tile(tile, tiles_m, tiles_n, GROUP_M);
        const int m0 = (t.m * CLUSTER_M + rank) * BLOCK_M, n0 = t.n * BLOCK_N;
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mbar_wait(empty_bar + 8 * s, phase ^ 1);
          copy_scales(s, kt, m0, n0, threadIdx.x - 32, 32);
          async_copy::cp_async_arrive_noinc(full_bar + 8 * s);
          if (++s == NUM_STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
      async_copy::cp_async_wait<0, 1>();
    } else if (TRANSPOSES && threadIdx.x >= 32) {
      // ---- transposers (warps 1-3): each raw stage, rewritten K-major into the operand ring ----
      const int t = threadIdx.x - 32;
      int s = 0;
      unsigned phase = 0;
      WorkWalk<SPLIT_K, STREAM_K> work = work_begin;
      int tile, kt_begin, kt_end;
      while (work.next(tile, kt_begin, kt_end)) {
        for (int kt = kt_begin; kt < kt_end; ++kt) {
          mbar_wait(raw_bar + 8 * s, phase);
          const unsigned raw = raw_tiles + s * RAW_STAGE;
          transpose_stage<BLOCK_N>(raw, b_tiles + s * B_STAGE, t, 96);
          fence_proxy_async_shared();  // the generic-proxy writes, before wgmma reads them
          __syncwarp();
          if (threadIdx.x % 32 == 0) mbar_arrive(full_bar + 8 * s);
          if (++s == NUM_STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
  } else {
    // ---- consumer warpgroups ----
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
    // Broadcast from lane 0, so that the compiler knows it is the same in every thread of a warp:
    // the descriptors built from it then stay in uniform registers, stepped by uniform adds.
    const int consumer = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0) - 1;
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const bool store_leader = EPILOGUE && threadIdx.x % 128 == 0;  // issues this consumer's stores
    unsigned panel_seq = 0;  // EPILOGUE 2: panels staged so far; its parity picks the slot
    if (store_leader) prefetch_tensor_map(tmC);
    float scale = 1.f;
    if constexpr (KIND == Kind::e4m3 && !BLOCK_SCALED) scale = *scale_a * *scale_b;

    // Descriptors of stage 0, k-step 0, this consumer's first m64 slice. K-major tiles are rows
    // of 128 bytes (8-row groups 1024 bytes apart) and a k-step moves 32 bytes along the row;
    // M/N-major tiles are 64-wide panels of BLOCK_K rows and a k16 step moves 16 rows (2048 B).
    // With SWAP, wgmma's B is A's whole tile.
    constexpr unsigned A_KSTEP = A_KMAJOR ? 32 : 16 * SWIZZLE_ROW;
    constexpr unsigned B_KSTEP = SWAP ? 32 : B_KMAJOR ? 32 : 16 * SWIZZLE_ROW;
    constexpr unsigned A_MSTEP = A_KMAJOR ? 64 * SWIZZLE_ROW : PANEL;  // next m64 slice
    constexpr int WGMMA_B_STAGE = SWAP ? A_STAGE : B_STAGE;
    // The low words only (wgmma.cuh's desc_lo): every descriptor here has the high word DESC_HI.
    constexpr unsigned DESC_HI = desc_hi(SWIZZLE_ATOM);
    const unsigned desc_a0 = desc_lo(a_tiles + consumer * (CONSUMER_ROWS / 64) * A_MSTEP, A_KMAJOR ? 16 : PANEL);
    const unsigned desc_b0 = SWAP ? desc_lo(a_tiles + consumer * CONSUMER_ROWS * SWIZZLE_ROW, 16)
                                  : desc_lo(b_tiles, B_KMAJOR ? 16 : PANEL);
    // wgmma's A from registers: the M/N-major tile it comes from (this consumer's panels of B's
    // with SWAP, else of A's) and the tile row each accumulator row (mi, h) stands for.
    const unsigned frag_tiles = SWAP ? b_tiles + consumer * (CONSUMER_COLS / CHUNK) * PANEL
                                     : a_tiles + consumer * (CONSUMER_ROWS / CHUNK) * PANEL;
    constexpr int FRAG_STAGE = SWAP ? B_STAGE : A_STAGE;
    auto acc_row = [&](int mi, int h) {
      return REGS ? fragment_row<MI>(mi, h, warp, lane) : mi * 64 + warp * 16 + h * 8 + lane / 4;
    };

    float acc[MI][ACC];
    // Block scales (unused, so no registers, without them): a k tile's sums and the scales they
    // are added in with, read from the stage's slot of the scale ring (this thread's rows' A
    // scales at a_scale_at, after the CTA's BLOCK_M rows 16 bytes of B scales a column block, the
    // k tile's at kt & 3 in them).
    // B's scales come one per 64-column slice of the tile (NSL): a tile starts at a multiple of
    // 64, so each slice lies in one 128-column scale block, the first or the second the tile
    // touches; with a 192-wide tile which one depends on the tile (b_half: its first column is
    // 64 past a block's start), where with 64-, 128- and 256-wide tiles it is fixed.
    constexpr int NSL = cdiv(BLOCK_N, 64);
    float part[MI][ACC];
    float sa[MI][2], sb[NSL];
    unsigned a_scale_at[MI][2];
    unsigned b_half = 0;  // 16 bytes (one block's) when the tile's first column is 64 past a block
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) a_scale_at[mi][h] = scale_ring + 4 * (consumer * CONSUMER_ROWS + acc_row(mi, h));
    const auto read_scales = [&](int stage, int kt) {
      const unsigned slot = stage * SCALE_STAGE * 4;
      const unsigned b_scales = scale_ring + slot + 4 * (BLOCK_M + (kt & 3));
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) sa[mi][h] = ld_shared_f32(a_scale_at[mi][h] + slot);
#pragma unroll
      for (int q = 0; q < NSL; ++q) {
        if (BLOCK_N % 128 == 0 && q % 2 == 1)
          sb[q] = sb[q - 1];  // both halves of one block
        else
          sb[q] = ld_shared_f32(b_scales + 16 * (q / 2) + (q % 2 ? b_half : 0));
      }
    };
    int s = 0;
    unsigned phase = 0;
    WorkWalk<SPLIT_K, STREAM_K> work = work_begin;
    int tile, kt_begin, kt_end;
    int unit = 0;  // PINGPONG: units of the CTA's walk so far; the consumers take them in turns
    while (work.next(tile, kt_begin, kt_end)) {
      if (PINGPONG && (unit++ & 1) != consumer) {
        // The other consumer's tile: its k tiles pass through the ring's next stages, which this
        // consumer skips. Tiles alternate in the ring as in the walk, so while one consumer
        // stores its tile the other's main loop has the tensor cores (pingpong).
        const int stages = s + (kt_end - kt_begin);
        s = stages % NUM_STAGES;
        phase ^= (stages / NUM_STAGES) & 1;
        continue;
      }
      // A stage's "full" barrier tells phases apart by parity alone, so a consumer may wait on
      // its tile's stages only once the fills before them are complete: once the other consumer
      // has waited on every stage of the tile before (it arrives on barrier 3 + this consumer,
      // 128 threads each side, when its main loop is issued). The first tile waits for nothing.
      if (PINGPONG && unit > 1) named_barrier_sync(3 + consumer, 256);
      const KtuneTile t = ktune_grouped_tile(tile, tiles_m, tiles_n, GROUP_M);
      const int m0 = (t.m * CLUSTER_M + rank) * BLOCK_M + consumer * CONSUMER_ROWS;  // this consumer's rows
      const int n0 = t.n * BLOCK_N + consumer * CONSUMER_COLS;  // and columns
      if constexpr (BLOCK_SCALED && BLOCK_N % 128 != 0) b_half = n0 % 128 ? 16 : 0;
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int i = 0; i < ACC; ++i) acc[mi][i] = 0.f;

      // Arrives on a retired stage's "empty" barrier in every CTA of the cluster.
      auto release = [&](int stage) {
        if (lane != 0) return;
        if (CLUSTER_M == 1) {
          mbar_arrive(empty_bar + 8 * stage);
        } else {
#pragma unroll
          for (int r = 0; r < CLUSTER_M; ++r) mbar_arrive_cluster(empty_bar + 8 * stage, r);
        }
      };
      int prev = -1;  // the stage of the k tile before, not yet released
      // Block scales: a k tile's wgmma into `part`, starting from zero; and `part` added to acc
      // times the scales. The lambdas use `part` and the scales as captured: handing them in as
      // array references measured 15-30% slower at 4096 x 4096 x 7168 (results/h100/blockscaled-fp8).
      auto issue_scaled = [&](int stage) {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) fence_accumulators(part[mi]);
        wgmma_fence();
#pragma unroll
        for (int ks = 0; ks < KSTEPS; ++ks) {
          const unsigned long long db = desc_join(DESC_HI, desc_b0 + ((stage * B_STAGE + ks * B_KSTEP) >> 4));
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
            const unsigned long long da =
                desc_join(DESC_HI, desc_a0 + ((stage * A_STAGE + ks * A_KSTEP + mi * A_MSTEP) >> 4));
            if (ks == 0)
              wgmma<KIND, WN, 0, 0, 0>(part[mi], da, db);
            else
              wgmma<KIND, WN, 0, 0>(part[mi], da, db);
          }
        }
        wgmma_commit();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) fence_accumulators(part[mi]);
      };
      auto promote = [&]() {
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) fence_accumulators(part[mi]);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int j = 0; j < ACC / 4; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const float f = sa[mi][h] * sb[8 * j / 64];
              acc[mi][4 * j + 2 * h] += f * part[mi][4 * j + 2 * h];
              acc[mi][4 * j + 2 * h + 1] += f * part[mi][4 * j + 2 * h + 1];
            }
      };

      for (int kt = kt_begin; kt < kt_end; ++kt) {
        // Block scales wait for the next stage of a unit after releasing the one before (below).
        if (!BLOCK_SCALED || kt == kt_begin) mbar_wait(full_bar + 8 * s, phase);
        if constexpr (REGS) {
          // A k-step a group: its fragments load while the group before runs, into the buffer
          // the group before that read (it retired at the last wait). KSTEPS is even, so the
          // buffers alternate across stages too.
          unsigned frag[2][MI][4];
#pragma unroll
          for (int ks = 0; ks < KSTEPS; ++ks) {
            unsigned (&f)[MI][4] = frag[ks % 2];
            load_fragments<MI>(f, frag_tiles + s * FRAG_STAGE, ks, warp, lane);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
            wgmma_fence();
            const unsigned long long db = desc_join(DESC_HI, desc_b0 + ((s * WGMMA_B_STAGE + ks * B_KSTEP) >> 4));
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) wgmma_rs<KIND, WN, 0>(acc[mi], f[mi], db);
            wgmma_commit();
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
            wgmma_wait<1>();
            // The stage before this one retired with the first group of this one.
            if (ks == 0 && prev >= 0) release(prev);
          }
        } else if constexpr (BLOCK_SCALED) {
          // The k tile's sums start from zero in `part` and are added to acc times their two
          // scales once they are complete (DeepGEMM's promotion: fp32 adds at every 128 of K,
          // beyond the tensor core's own accumulation). The scales are read while the wgmma
          // run, before the stage is released. The wait for the unit's next stage comes after
          // the release, so that a late stage does not hold this one from the producer too
          // (measured 0.2-1.8% faster than waiting before it, results/h200/blockscaled-28ca8cf),
          // and after the promotion: at 4096 x 7168 x 16384 ncu found the next stage not yet
          // full at every k tile (results/h200/blockscaled-ed30653/diag-4096x7168x16384, the
          // scales then copied by warp 1), and a consumer that has already promoted issues its
          // wgmma as the stage lands. With bulk scale copies, in one default search each at
          // M = 4096 (not all the same winners), that was 0.7-4.1% faster than the wait first
          // (results/h200/blockscaled-bulk-s39, call 1). At M = 64 and 128 this kernel (warp 1's
          // copies, promotion first) was 0.9-2.2% slower on the mean than the one before it
          // (warp 1's copies, wait first), 7-10% on three problems (same README, call 4). The
          // wait first for warp 1's copies alone did not bring it back (0.2% lower on the mean
          // on the same configurations, results/h200/wait-first-s40).
          issue_scaled(s);
          // Where the TMA thread copies the scales (2), the next stage's barrier is asked now and
          // its answer read after the promotion, so the barrier's latency runs under the wait for
          // the wgmma and the promotion (cuBLASLt's kernel asks as early). M = 4096, same tiles,
          // two turns each: ratios to cuBLASLt 0.9-2.8% higher on each of the six problems of
          // suites/blockscaled.json; with warp 1's copies (M = 128) one of three was 1.2-1.8%
          // lower, the others level (results/h200/blockscaled-probe-s47), so there the wait stays
          // after the promotion.
          const unsigned next_full = full_bar + 8 * (s + 1 == NUM_STAGES ? 0 : s + 1);
          const unsigned next_phase = s + 1 == NUM_STAGES ? phase ^ 1 : phase;
          const unsigned next_ready = BLOCK_SCALED == 2 && kt + 1 < kt_end ? mbar_try(next_full, next_phase) : 0u;
          read_scales(s, kt);
          wgmma_wait<0>();
          release(s);
          promote();
          if (kt + 1 < kt_end && !next_ready) mbar_wait(next_full, next_phase);
        } else {
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
          wgmma_fence();
#pragma unroll
          for (int ks = 0; ks < KSTEPS; ++ks) {
            // Descriptor addresses are in 16-byte units in the low bits; base plus offset stays
            // below 256 KB, so adding them to the low word cannot carry into other fields.
            const unsigned long long db = desc_join(DESC_HI, desc_b0 + ((s * B_STAGE + ks * B_KSTEP) >> 4));
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
              const unsigned long long da =
                  desc_join(DESC_HI, desc_a0 + ((s * A_STAGE + ks * A_KSTEP + mi * A_MSTEP) >> 4));
              wgmma<KIND, BLOCK_N, A_KMAJOR ? 0 : 1, B_KMAJOR ? 0 : 1>(acc[mi], da, db);
            }
          }
          wgmma_commit();
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
          // The group before this one has retired: its stage can be refilled.
          wgmma_wait<1>();
          if (prev >= 0) release(prev);
        }
        prev = BLOCK_SCALED ? -1 : s;  // block scales release each stage as its sums complete
        if (++s == NUM_STAGES) {
          s = 0;
          phase ^= 1;
        }
      }
      if constexpr (PINGPONG) {
        // Every stage of this tile has been waited on: the other consumer's next tile may start
        // (if the walk has one), its wgmma queued behind this tile's last.
        WorkWalk<SPLIT_K, STREAM_K> ahead = work;
        int next_tile, next_begin, next_end;
        if (ahead.next(next_tile, next_begin, next_end)) named_barrier_arrive(3 + (consumer ^ 1), 256);
      }
      wgmma_wait<0>();
#pragma unroll
      for (int mi = 0; mi < MI; ++mi) fence_accumulators(acc[mi]);
      if (prev >= 0) release(prev);  // a split may have no k tiles when K is short
      if (m0 >= M) continue;  // a cluster CTA wholly past the edge of M

      // A part of a tile: every split-K unit (one may cover all of a short K: it still arrives),
      // a stream-K range's share of a tile, a split tail's slice.
      const bool partial_unit = STREAM_K == 3 ? tile >= work_begin.whole
                                              : SPLIT_K > 1 || (STREAMED && !(kt_begin == 0 && kt_end == k_tiles));
      if (partial_unit) {
        // A part of the tile: it leaves its fp32 partial sums in its own slot of `partials`
        // (thread by thread, 16-byte stores) and arrives on the tile's counter; the consumer
        // that arrives last adds the others' to its own, resets the counter for the next launch,
        // and stores C. Nobody waits for another part, so no schedule can deadlock. Split-K's
        // slots are per (tile, split); stream-K's per CTA: the part at the start of its range
        // (0) and the one at its end (1), and its arrivals count k tiles. The split tail's slots
        // and counters are its tiles' alone, counted from the first tail tile.
        const int tid = threadIdx.x % 128;
        constexpr int SLOT = MI * ACC * 128;
        const int slot_tile = STREAM_K == 3 ? tile - work_begin.whole : tile;
        auto split_slot = [&](int sp) {
          return partials +
                 (((static_cast<long long>(slot_tile) * CLUSTER_M + rank) * SPLIT_K + sp) * NUM_CONSUMERS +
                  consumer) * SLOT;
        };
        auto stream_slot = [&](int c, int part) {
          return partials +
                 (((static_cast<long long>(c) * CLUSTER_M + rank) * 2 + part) * NUM_CONSUMERS + consumer) * SLOT;
        };
        const long long tile_begin = static_cast<long long>(tile) * k_tiles;
        unsigned* const counter = arrivals + (slot_tile * CLUSTER_M + rank) * NUM_CONSUMERS + consumer;
        const unsigned weight = STREAMED ? kt_end - kt_begin : 1;
        const unsigned whole_weight = STREAMED ? k_tiles : SPLIT_K;
        // Thread 0 tells its warpgroup whether this part completes the tile, through shared memory
        // (the first barrier: every thread has read the flag's last value before it is written).
        auto share_last = [&](bool mine_last) {
          named_barrier_sync(1 + consumer, 128);
          if (tid == 0)
            asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(last_flag + 4 * consumer), "r"(mine_last ? 1u : 0u)
                         : "memory");
          named_barrier_sync(1 + consumer, 128);
          unsigned flag;
          asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(flag) : "r"(last_flag + 4 * consumer) : "memory");
          return flag != 0;
        };
        // A stream-K part that starts its tile is the end of its CTA's range, and the tile's other
        // parts began the ranges after it, so they have nearly always arrived by then: it looks at
        // the counter first, and when they have it needs no partials of its own in memory.
        bool last = false;
        if (STREAMED && kt_begin == 0) {
          bool seen_all = false;
          if (tid == 0) {
            unsigned before;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(before) : "l"(counter) : "memory");
            seen_all = before + weight == whole_weight;
            if (seen_all) *counter = 0;  // nobody else arrives at this tile in this launch
          }
          last = share_last(seen_all);
        }
        if (!last) {
          float* const mine = STREAMED ? stream_slot(cluster, tile_begin + kt_begin == work_begin.pos ? 0 : 1)
                                       : split_slot(work.split);
#pragma unroll
          for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int i = 0; i < ACC; i += 4)
              __stcg(reinterpret_cast<float4*>(mine + ((mi * ACC + i) * 128 + 4 * tid)),
                     make_float4(acc[mi][i], acc[mi][i + 1], acc[mi][i + 2], acc[mi][i + 3]));
          __threadfence();  // the partials are visible GPU-wide before the arrival that announces them
          named_barrier_sync(1 + consumer, 128);
          bool arrived_last = false;
          if (tid == 0) {
            const unsigned before = atomicAdd(counter, weight);
            arrived_last = before + weight == whole_weight;
            if (arrived_last) *counter = 0;
          }
          if (!share_last(arrived_last)) continue;
        }
        __threadfence();
        auto add = [&](const float* other) {
#pragma unroll
          for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int i = 0; i < ACC; i += 4) {
              const float4 v = __ldcg(reinterpret_cast<const float4*>(other + ((mi * ACC + i) * 128 + 4 * tid)));
              acc[mi][i] += v.x;
              acc[mi][i + 1] += v.y;
              acc[mi][i + 2] += v.z;
              acc[mi][i + 3] += v.w;
            }
        };
        if constexpr (STREAMED) {
          using Walk = WorkWalk<SPLIT_K, STREAM_K>;
          const int streamed = work_begin.streamed;
          const int c0 = Walk::range_of(tile_begin, clusters, streamed, k_tiles);
          const int c1 = Walk::range_of(tile_begin + k_tiles - 1, clusters, streamed, k_tiles);
          for (int c = c0; c <= c1; ++c) {
            const long long b = Walk::range_begin(c, clusters, streamed, k_tiles);
            if (c == cluster || b == Walk::range_begin(c + 1, clusters, streamed, k_tiles)) continue;
            add(stream_slot(c, b >= tile_begin ? 0 : 1));
          }
        } else {
          for (int sp = 0; sp < SPLIT_K; ++sp)
            if (sp != work.split) add(split_slot(sp));
        }
      }

      // Epilogue. Thread (warp, lane) holds rows acc_row(mi, h) of wgmma's M extent (16*warp +
      // lane/4 (+8) of each m64 slice when A comes from shared memory) and, per 8-column group j,
      // columns 8j + 2*(lane%4) (+1): acc[mi][4j + 2h + {0,1}]. With SWAP those are C's columns
      // and rows.
      // SWAP's accumulator values (j, e) for the pair of slices p (4 consecutive columns of C,
      // from acc_row(2p, 0)) or the single last slice (2 columns, from acc_row(MI - 1, 0)).
      auto pair_values = [&](int p, int j, int e) {
        return make_float4(acc[2 * p][4 * j + e], acc[2 * p][4 * j + 2 + e], acc[2 * p + 1][4 * j + e],
                           acc[2 * p + 1][4 * j + 2 + e]);
      };
      auto single_values = [&](int j, int e) { return make_float2(acc[MI - 1][4 * j + e], acc[MI - 1][4 * j + 2 + e]); };
      // Columns [8 j_begin, 8 j_end) of the tile straight from registers (EPILOGUE 0's whole tile,
      // the staged epilogues' columns past their last whole panel).
      auto store_direct = [&](int j_begin, int j_end) {
        if constexpr (sizeof(OutT) == 2 && !SWAP) {
          static_assert(BLOCK_N % 16 == 0, "the quads' exchange takes column groups in pairs");
          // A quad of threads holds 16 consecutive columns of a row as groups j and j + 1, 4
          // bytes a thread in each: stored so, every store half-fills each 32-byte sector it
          // touches, and the L2 takes each sector in two writes. Two shuffles give each thread
          // 4 consecutive columns instead (thread q: 4q .. 4q + 3), and the quad writes whole
          // sectors with 8-byte stores. Rows must be 8-byte aligned (N % 4 == 0); every lane
          // takes part in the shuffles, whether its row is inside M or not.
          if (N % 4 == 0) {
            const int q = lane % 4;
            const int src = (lane & ~3) | ((q & 1) << 1 | (q >> 1));  // q's bits swapped
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                const int row = m0 + acc_row(mi, h);
                OutT* const dst = C + static_cast<long long>(row) * N;
#pragma unroll
                for (int j = j_begin; j < j_end; j += 2) {
                  const unsigned a = Out<OutT>::pack(scale * acc[mi][4 * j + 2 * h], scale * acc[mi][4 * j + 2 * h + 1]);
                  const unsigned b =
                      Out<OutT>::pack(scale * acc[mi][4 * j + 4 + 2 * h], scale * acc[mi][4 * j + 4 + 2 * h + 1]);
                  // Lane p gives group j's pair to quad threads 0-1 and group j + 1's to 2-3.
                  const unsigned r1 = __shfl_sync(0xffffffffu, (q & 1) ? b : a, src);
                  const unsigned r2 = __shfl_sync(0xffffffffu, (q & 1) ? a : b, src ^ 1);
                  const int col = n0 + 8 * j + 4 * q;
                  if (row < M && col < N)
                    *reinterpret_cast<uint2*>(dst + col) = q < 2 ? make_uint2(r1, r2) : make_uint2(r2, r1);
                }
              }
            }
            return;
          }
        }
        const int col_base = n0 + 2 * (lane % 4);
        const bool pairs = (N % 2) == 0;  // a column pair is aligned and wholly in or out
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int row = m0 + acc_row(mi, h);
            if (row >= M) continue;
            OutT* const dst = C + static_cast<long long>(row) * N;
#pragma unroll
            for (int j = j_begin; j < j_end; ++j) {
              const int col = col_base + 8 * j;
              const float x = scale * acc[mi][4 * j + 2 * h], y = scale * acc[mi][4 * j + 2 * h + 1];
              if (pairs) {
                if (col < N) Out<OutT>::store2(dst + col, x, y);
              } else {
                if (col < N) Out<OutT>::store1(dst + col, x);
                if (col + 1 < N) Out<OutT>::store1(dst + col + 1, y);
              }
            }
          }
        }
      };
      if constexpr (EPILOGUE == 0 && SWAP) {
        // C's row m0 + 8j + 2*(lane%4) + e, its columns as above, 16 or 8 bytes at once.
#pragma unroll
        for (int j = 0; j < ACC / 4; ++j)
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int row = m0 + 8 * j + 2 * (lane % 4) + e;
            if (row >= M) continue;
            float* const dst = reinterpret_cast<float*>(C) + static_cast<long long>(row) * N + n0;
#pragma unroll
            for (int p = 0; p < MI / 2; ++p) store_run(dst, acc_row(2 * p, 0), N - n0, pair_values(p, j, e));
            if constexpr (MI % 2 == 1) store_run(dst, acc_row(MI - 1, 0), N - n0, single_values(j, e));
          }
      } else if constexpr (EPILOGUE == 0) {
        store_direct(0, BLOCK_N / 8);
      } else {
        // Staging: this consumer's C_ROWS × C_COLS outputs as 128-byte-wide column panels of
        // C_ROWS rows, 128-byte swizzled (16-byte chunk c of row r at chunk c ^ (r % 8)), the
        // layout of tmC's box, so the 8 rows a warp writes at once hit different banks.
        // EPILOGUE 1 stages the whole tile and stores it at once. EPILOGUE 2 stages one panel
        // at a time in two alternating slots, storing each as soon as it is written, so that
        // the staging memory is two panels and the ring can be deeper. A tile 144-240 wide
        // stages its whole panels so and stores its last columns (C_TAIL_COLS) directly.
        const unsigned c_mine = c_tile + consumer * C_WG_TILE;
        auto staged = [&](unsigned panel, int row, int col) {  // (row, col) of a panel's columns
          const int byte = (col % C_PANEL_COLS) * OE;
          return panel + row * SWIZZLE_ROW + ((((byte >> 4) ^ row) & 7) << 4) + (byte & 15);
        };
        // Writes the columns [j_begin, j_end) * 8 of the tile, those of one panel or all.
        auto write_columns = [&](int j_begin, int j_end, auto panel_of) {
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
            for (int j = j_begin; j < j_end; j += 2) {
              if constexpr (OE == 2) {
                // Matrices (j, rows 0-7), (j, rows 8-15), (j+1, 0-7), (j+1, 8-15): lane's
                // matrix is lane/8, its row lane%8.
                const int row = mi * 64 + warp * 16 + lane % 8;
                const int q = lane / 8;
                const int col = (j + q / 2) * 8;
                const unsigned addr = staged(panel_of(col), row + (q % 2) * 8, col);
                const float* a = acc[mi];
                stmatrix_x4(addr, Out<OutT>::pack(scale * a[4 * j], scale * a[4 * j + 1]),
                            Out<OutT>::pack(scale * a[4 * j + 2], scale * a[4 * j + 3]),
                            Out<OutT>::pack(scale * a[4 * j + 4], scale * a[4 * j + 5]),
                            Out<OutT>::pack(scale * a[4 * j + 6], scale * a[4 * j + 7]));
              } else {
#pragma unroll
                for (int jj = j; jj < j + 2; ++jj)
#pragma unroll
                  for (int h = 0; h < 2; ++h) {
                    const int col = 8 * jj + 2 * (lane % 4);
                    st_shared_v2(staged(panel_of(col), acc_row(mi, h), col), acc[mi][4 * jj + 2 * h],
                                 acc[mi][4 * jj + 2 * h + 1]);
                  }
              }
            }
          }
        };
        if constexpr (EPILOGUE == 1) {
          // The previous tile's stores must have read the staging tile before it is rewritten.
          if (store_leader) bulk_wait_read<0>();
          named_barrier_sync(1 + consumer, 128);
          auto panel_of = [&](int col) { return c_mine + (col / C_PANEL_COLS) * C_PANEL; };
          if constexpr (SWAP) {
            // C's rows 8j + 2*(lane%4) + e of this consumer's, columns as EPILOGUE 0's above.
#pragma unroll
            for (int j = 0; j < ACC / 4; ++j)
#pragma unroll
              for (int e = 0; e < 2; ++e) {
                const int row = 8 * j + 2 * (lane % 4) + e;
#pragma unroll
                for (int p = 0; p < MI / 2; ++p) {
                  const int col = acc_row(2 * p, 0);
                  const float4 v = pair_values(p, j, e);
                  st_shared_v4(staged(panel_of(col), row, col), v.x, v.y, v.z, v.w);
                }
                if constexpr (MI % 2 == 1) {
                  const int col = acc_row(MI - 1, 0);
                  const float2 v = single_values(j, e);
                  st_shared_v2(staged(panel_of(col), row, col), v.x, v.y);
                }
              }
          } else {
            write_columns(0, C_PANELS * C_PANEL_COLS / 8, panel_of);
          }
          fence_proxy_async_shared();
          named_barrier_sync(1 + consumer, 128);
          if (store_leader) {
#pragma unroll
            for (int p = 0; p < C_PANELS; ++p)
              tma_store_2d(tmC, c_mine + p * C_PANEL, n0 + p * C_PANEL_COLS, m0);
            bulk_commit();
          }
          if constexpr (C_TAIL_COLS > 0) store_direct(C_PANELS * C_PANEL_COLS / 8, BLOCK_N / 8);
        } else {
#pragma unroll
          for (int p = 0; p < C_PANELS; ++p, ++panel_seq) {
            const unsigned slot = c_mine + (panel_seq & 1) * C_PANEL;
            // The store that last read this slot (two panels ago) must be done reading it.
            if (store_leader) bulk_wait_read<1>();
            named_barrier_sync(1 + consumer, 128);
            write_columns(p * C_PANEL_COLS / 8, (p + 1) * C_PANEL_COLS / 8, [&](int) { return slot; });
            fence_proxy_async_shared();
            named_barrier_sync(1 + consumer, 128);
            if (store_leader) {
              tma_store_2d(tmC, slot, n0 + p * C_PANEL_COLS, m0);
              bulk_commit();
            }
          }
          if constexpr (C_TAIL_COLS > 0) store_direct(C_PANELS * C_PANEL_COLS / 8, BLOCK_N / 8);
        }
      }
    }
    if (store_leader) bulk_wait_all();  // the staging tile must outlive the last stores
  }
  // A CTA's shared memory and barriers must outlive the peers' multicasts and remote arrivals.
  if (CLUSTER_M > 1) cluster_sync();
}

// Operands by TMA: tmA, tmB (and tmC) are the tensor maps described at the top.
template <typename T, typename OutT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_STAGES, int NUM_CONSUMERS, int GROUP_M, int CLUSTER_M,
          int BLOCKS_PER_SM, int EPILOGUE, int SPLIT_K, int STREAM_K, int BLOCK_SCALED, int PINGPONG>
__global__ void __cluster_dims__(CLUSTER_M, 1, 1)
    __launch_bounds__((NUM_CONSUMERS + 1) * 128, BLOCKS_PER_SM)
ktune_gemm_wgmma(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmB,
                 OutT* __restrict__ C, int M, int N, int K, const __grid_constant__ CUtensorMap tmC,
                 const float* __restrict__ scale_a, const float* __restrict__ scale_b,
                 float* __restrict__ partials, unsigned* __restrict__ arrivals) {
  ktune_gemm_wgmma_body<T, OutT, A_ROW_MAJOR, B_ROW_MAJOR, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, NUM_CONSUMERS,
                        GROUP_M, CLUSTER_M, BLOCKS_PER_SM, EPILOGUE, SPLIT_K, STREAM_K, BLOCK_SCALED, PINGPONG>(
      gemm_wgmma_detail::TmaOperands{&tmA, &tmB}, C, M, N, K, &tmC, scale_a, scale_b, partials, arrivals);
}

// Operands copied by the producer warpgroup (cp.async, 8-byte pieces): A and B are plain
// pointers whose rows need only be 8-byte aligned (lda, ldb multiples of 8 bytes), where TMA
// needs 16; C's tensor map as above. No clusters: B cannot be multicast without TMA.
template <typename T, typename OutT, int A_ROW_MAJOR, int B_ROW_MAJOR, int BLOCK_M, int BLOCK_N,
          int BLOCK_K, int NUM_STAGES, int NUM_CONSUMERS, int GROUP_M, int CLUSTER_M,
          int BLOCKS_PER_SM, int EPILOGUE, int SPLIT_K, int STREAM_K, int BLOCK_SCALED>
__global__ void __launch_bounds__((NUM_CONSUMERS + 1) * 128, BLOCKS_PER_SM)
ktune_gemm_wgmma_cp_async(const T* __restrict__ A, const T* __restrict__ B, OutT* __restrict__ C, int M, int N,
                          int K, const __grid_constant__ CUtensorMap tmC, const float* __restrict__ scale_a,
                          const float* __restrict__ scale_b, float* __restrict__ partials,
                          unsigned* __restrict__ arrivals) {
  ktune_gemm_wgmma_body<T, OutT, A_ROW_MAJOR, B_ROW_MAJOR, BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, NUM_CONSUMERS,
                        GROUP_M, CLUSTER_M, BLOCKS_PER_SM, EPILOGUE, SPLIT_K, STREAM_K, BLOCK_SCALED, 0>(
      gemm_wgmma_detail::CopiedOperands<T>{A, B}, C, M, N, K, &tmC, scale_a, scale_b, partials, arrivals);
}
