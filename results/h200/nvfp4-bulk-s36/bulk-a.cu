// gemv_nvfp4_bulk.cu — C = A · dequant(W)^T with NVFP4 weights and 16-bit activations for the
// decode regime (M <= 16), on sm_90+: gemv_nvfp4.cu's decode and tensor-core multiply, with the
// bytes brought by the copy engine instead of the threads' own loads.
//
// gemv_nvfp4.cu's register path keeps one or two chunks a warp in flight, each held in registers
// from its load to its decode; ncu saw its winner keep DRAM about half busy on an H200 while
// cuBLAS's 16-bit GEMV kept it 80% busy (results/h200/nvfp4-lean-s32). Here a producer warp has
// bulk copies (cp.async.bulk, no tensor map) fill a ring of STAGES stages in shared memory, each
// holding SPAN = K_WARPS x 128 k of the block's weight rows, their group scales and the activation
// rows, and completing the stage's mbarrier. The consumer warps read a stage into registers, free
// it (a second mbarrier the producer waits on before refilling), and decode: the bytes in flight
// cost no registers and no issue slots, up to STAGES - 1 stages a block.
//
// Formats and decode are gemv_nvfp4.cu's (nvfp4.cuh, nvfp4_gemv.cuh). A stage, for its chunks
// c0 .. c0 + n (n <= K_WARPS, even):
//   W      ROWS rows of n * 64 bytes, W_PITCH apart: 64 bytes more than a row's share, so that the
//          8 rows of a quarter of a warp's 16-byte reads fall in different banks;
//   scales ROWS rows of n * 8 bytes, K_WARPS * 8 apart;
//   A      M rows of n * 256 bytes, K_WARPS * 256 apart.
// Consumer warp (rt, kw) decodes chunk c0 + kw of rows rt * 16 .. + 15. Rows of W past N are copied
// from row N - 1 and activation rows past M are read from row M - 1: their sums land in outputs
// never written. Every copy is whole 16-byte pieces at 16-byte addresses: K % 256 == 0 and chunks
// split in even counts make a stage's scales 16 bytes a pair of chunks.
//
// Launch: grid (cdiv(N, 16 * ROW_TILES), SPLIT_K), (ROW_TILES * K_WARPS + 1) * 32 threads (the last
// warp the producer), SMEM_BYTES of dynamic shared memory (configs/gemm_nvfp4_bulk.json).
//
// Tunables: N_TILES, ROW_TILES, K_WARPS and SPLIT_K as gemv_nvfp4.cu (K_WARPS even); STAGES, the
// stages in the ring.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include "hopper_async.cuh"
#include "nvfp4_gemv.cuh"

template <typename T, int N_TILES, int ROW_TILES, int K_WARPS, int STAGES, int SPLIT_K>
__global__ void __launch_bounds__((ROW_TILES * K_WARPS + 1) * 32,
                                  (1024 / ((ROW_TILES * K_WARPS + 1) * 32) > 0 ? 1024 / ((ROW_TILES * K_WARPS + 1) * 32) : 1))
ktune_gemv_nvfp4_bulk(const T* __restrict__ A, const unsigned char* __restrict__ W,
                      const unsigned char* __restrict__ W_scales, const float* __restrict__ tensor_scale,
                      T* __restrict__ C, int M, int N, int K, float* __restrict__ partials,
                      unsigned* __restrict__ arrivals) {
  using D = nvfp4::Dequant<T>;
  namespace ha = hopper_async;
  constexpr int CONSUMERS = ROW_TILES * K_WARPS;
  constexpr int THREADS = (CONSUMERS + 1) * 32;
  constexpr int ROWS = ROW_TILES * 16;
  constexpr int W_PITCH = K_WARPS * 64 + 64, S_PITCH = K_WARPS * 8, A_PITCH = K_WARPS * 256;
  constexpr int BARRIER_BYTES = 128;  // full[STAGES], empty[STAGES]; keeps the stages 128-byte aligned
  static_assert(K_WARPS % 2 == 0, "K_WARPS: even, so that a stage's scales are whole 16-byte pieces");
  static_assert(N_TILES == 1 || N_TILES == 2, "N_TILES: 1 or 2");
  static_assert(2 * STAGES * 8 <= BARRIER_BYTES, "STAGES: at most 8");

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int n0 = blockIdx.x * ROWS;

  // This block's chunks of 128 k, an even count from an even start (K % 256 == 0).
  const int chunks = K / 128;
  const int per_split = ((chunks + SPLIT_K - 1) / SPLIT_K + 1) / 2 * 2;
  const int c_begin = min(chunks, (int)blockIdx.y * per_split);
  const int c_end = min(chunks, c_begin + per_split);
  const int stages = (c_end - c_begin + K_WARPS - 1) / K_WARPS;

  extern __shared__ __align__(128) unsigned char smem[];
  const unsigned full = ha::smem_addr(smem), empty = full + STAGES * 8;
  unsigned char* const ring = smem + BARRIER_BYTES;
  const int stage_bytes = ROWS * (W_PITCH + S_PITCH) + M * A_PITCH;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      ha::mbar_init(full + s * 8, 1);
      ha::mbar_init(empty + s * 8, CONSUMERS);
    }
    ha::fence_mbarrier_init();
  }
  __syncthreads();

  float acc[N_TILES][4];
#pragma unroll
  for (int j = 0; j < N_TILES; ++j)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[j][i] = 0.f;

  const int rt = warp % ROW_TILES, kw = warp / ROW_TILES;  // consumers only
  if (warp == CONSUMERS) {
    // The producer: its lanes share each stage's copies, lane 0 announcing the bytes first.
    const long long w_ld = K / 2, s_ld = K / 16, a_ld = K;
    for (int s = 0; s < stages; ++s) {
      const int slot = s % STAGES, c0 = c_begin + s * K_WARPS, n = min(K_WARPS, c_end - c0);
      ha::mbar_wait(empty + slot * 8, ((s / STAGES) & 1) ^ 1);
      if (lane == 0) ha::mbar_arrive_expect_tx(full + slot * 8, (ROWS * 72 + M * 256) * n);
      __syncwarp();
      const unsigned base = ha::smem_addr(ring + slot * stage_bytes);
      for (int i = lane; i < 2 * ROWS + M; i += 32) {
        if (i < ROWS) {
          const long long r = min(n0 + i, N - 1);
          ha::bulk_load(base + i * W_PITCH, W + r * w_ld + c0 * 64ll, n * 64, full + slot * 8);
        } else if (i < 2 * ROWS) {
          const long long r = min(n0 + i - ROWS, N - 1);
          ha::bulk_load(base + ROWS * W_PITCH + (i - ROWS) * S_PITCH, W_scales + r * s_ld + c0 * 8ll, n * 8,
                        full + slot * 8);
        } else {
          const int m = i - 2 * ROWS;
          ha::bulk_load(base + ROWS * (W_PITCH + S_PITCH) + m * A_PITCH, A + m * a_ld + c0 * 128ll, n * 256,
                        full + slot * 8);
        }
      }
    }
  } else {
    const int g = lane / 4, q = lane % 4;
    const int w_row[2] = {(rt * 16 + g) * W_PITCH + kw * 64 + q * 16, (rt * 16 + g + 8) * W_PITCH + kw * 64 + q * 16};
    const int s_row[2] = {ROWS * W_PITCH + (rt * 16 + g) * S_PITCH + kw * 8 + q * 2,
                          ROWS * W_PITCH + (rt * 16 + g + 8) * S_PITCH + kw * 8 + q * 2};
    int a_row[N_TILES];
#pragma unroll
    for (int j = 0; j < N_TILES; ++j) a_row[j] = ROWS * (W_PITCH + S_PITCH) + min(j * 8 + g, M - 1) * A_PITCH + kw * 256 + q * 64;
    for (int s = 0; s < stages; ++s) {
      const int slot = s % STAGES, c0 = c_begin + s * K_WARPS;
      ha::mbar_wait(full + slot * 8, (s / STAGES) & 1);
      const unsigned char* const st = ring + slot * stage_bytes;
      const bool mine = c0 + kw < c_end;
      uint4 vu[2], x[N_TILES][4];
      unsigned su[2];
      if (mine) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          vu[r] = *reinterpret_cast<const uint4*>(st + w_row[r]);
          su[r] = *reinterpret_cast<const unsigned short*>(st + s_row[r]);
        }
#pragma unroll
        for (int j = 0; j < N_TILES; ++j)
#pragma unroll
          for (int w = 0; w < 4; ++w) x[j][w] = *reinterpret_cast<const uint4*>(st + a_row[j] + w * 16);
      }
      __syncwarp();  // the warp's reads of the stage are done: free it for the producer
      if (lane == 0) ha::mbar_arrive(empty + slot * 8);
      if (mine) nvfp4::mma_chunk<T, N_TILES>(acc, vu, su, x);
    }
  }
  __syncthreads();  // the ring is read: the warps' sums take its place

  const float factor = *tensor_scale * D::EPILOGUE_FACTOR;
  nvfp4::finish_block<T, N_TILES, ROWS, K_WARPS, THREADS, SPLIT_K>(reinterpret_cast<float*>(ring), acc,
                                                                 warp < CONSUMERS, rt, kw, lane / 4, lane % 4, n0,
                                                                 M, N, factor, C, partials, arrivals);
}
