// attention_wgmma.cu — forward attention for Hopper (sm_90a) on warpgroup MMA: the shapes, masks
// and outputs of attention_mma.cu (read its header), with S = Q·Kᵀ and O += P·V as wgmma and Q,
// K, V loaded by the tensor memory accelerator.
//
// Launch: grid cdiv(seqlen_q, 64 * CONSUMERS) * heads * batch blocks along x (a tile each), or
// fewer for a persistent grid (each block then runs several tiles), (CONSUMERS + 1) * 128
// threads, and (Q_STAGES * 64 * CONSUMERS + 2 * STAGES * BLOCK_N) * HEAD_DIM * sizeof(T) + 1024 +
// 256 bytes of dynamic shared memory (the slack aligns the tiles to the 1024-byte swizzle period
// and holds the mbarriers). Arguments as attention_mma.cu's (batch counts the tiles here), but Q,
// K and V are 4-D tensor maps (one head of one batch a box, 64 elements by rows, 128-byte swizzle;
// families/attention.cpp encodes them). Every tile sees at least one key (the family requires
// seqlen_kv >= seqlen_q under a causal mask).
//
// Tunables: BLOCK_N (keys per step: 64, 80, 128, 160, 176 or 192, the N of the QKᵀ wgmma; the
// larger steps spread each step's fixed cost over more keys; 80 is the largest whose two K/V
// stages fit beside a head_dim-256 Q tile), CONSUMERS (warpgroups, each owning 64
// query rows: 1 to 3; three leave each 160 registers, enough for head_dim 64, or 128 without
// OVERLAP), STAGES (depth of
// the K/V ring, 2 or 3), PINGPONG (1, with two consumers: they take turns issuing their wgmma, so
// one's softmax runs while the other's matrix products do), Q_STAGES (Q tiles: 2 lets a
// persistent block load the next tile's Q while this tile's last products still read its own, and
// its consumers then run across the tile boundary without draining: the next tile's first scores
// are issued with this tile's last P·V, their softmax runs under it, and this tile's output is
// written while the other consumer's products run), OVERLAP (1: a consumer issues block n's QKᵀ
// with block n-1's P·V and runs block n's softmax under that P·V, so it holds both blocks'
// registers; 0: it runs its blocks one step after another, leaving the tensor cores to the other
// consumers meanwhile, which frees the registers for three consumers at head_dim 128 and 128 keys
// a step: 192 query rows share each K/V tile, a third less traffic from L2 per row than 128).
// Persistence is the launch's (configs/attention_wgmma.json's PERSISTENT): with fewer blocks than
// tiles each block runs several, the next one's loads under this one's end.
//
// Design (FlashAttention-3's). Warpgroup 0 produces: one thread loads a tile's Q, then each key
// block's K and V tiles into a STAGES-deep ring by TMA, each tile completing its own "full"
// mbarrier, and refills a stage once every consumer warp has arrived on its "empty" one. The
// copies cost the producer a few instructions a tile, where per-thread cp.async cost the issue
// slots of a whole warpgroup. The other warpgroups consume; setmaxnreg moves the producer's
// registers to them. Tiles sit in shared memory as TMA writes them with the 128-byte swizzle and
// wgmma reads them: 64-column panels of 128-byte rows. QKᵀ reads Q and K from there (both
// K-major); PV takes P from registers (the accumulator layout of two n8 tiles is the A-operand
// layout of one k16 step) and V N-major, so probabilities never touch shared memory. Within a
// consumer, block n's QKᵀ and block n-1's PV are issued together and block n's softmax runs while
// that PV does (O is rescaled by block n's factor just before the next PV). Key blocks no row
// masks skip the mask arithmetic; blocks are issued longest causal rows first.
#include "attention_common.cuh"
#include "hopper_async.cuh"
#include "tma.cuh"
#include "wgmma.cuh"

template <typename T, int HEAD_DIM, int BLOCK_N, int CONSUMERS, int STAGES, int Q_STAGES, int PINGPONG, int OVERLAP,
          int CAUSAL, int BSHD>
__global__ void __launch_bounds__((CONSUMERS + 1) * 128, 1)
    ktune_attention_wgmma(const __grid_constant__ CUtensorMap tmQ, const __grid_constant__ CUtensorMap tmK,
                          const __grid_constant__ CUtensorMap tmV, T* __restrict__ o, float* __restrict__ lse,
                          int batch, int heads, int kv_heads, int seqlen_q, int seqlen_kv, float scale_log2,
                          float* /*partials: split KV's*/, unsigned* __restrict__ tile_counter) {
  using namespace attention_common;
  using namespace hopper_async;
  using namespace tma;
  using namespace wgmma_ops;
  constexpr int THREADS = (CONSUMERS + 1) * 128;
  constexpr int BLOCK_M = 64 * CONSUMERS;
  constexpr int PANELS = HEAD_DIM / 64;  // 64-column panels of a tile (one TMA box each)
  constexpr Kind KIND = OperandKind<T>::value;
  constexpr unsigned TILE_N_BYTES = BLOCK_N * HEAD_DIM * sizeof(T);
  // Registers: __launch_bounds__ caps each thread at ENTRY_REGS; setmaxnreg then moves the
  // producer's share to the consumers, which hold the O accumulators, the scores and P.
  constexpr int ENTRY_REGS = (65536 / THREADS < 256 ? 65536 / THREADS : 256) / 8 * 8;
  constexpr int PRODUCER_REGS = 24;
  constexpr int CONSUMER_REGS_FIT = (ENTRY_REGS * (CONSUMERS + 1) - PRODUCER_REGS) / CONSUMERS / 8 * 8;
  constexpr int CONSUMER_REGS = CONSUMER_REGS_FIT < 240 ? CONSUMER_REGS_FIT : 240;
  static_assert(sizeof(T) == 2, "fp16 or bf16");
  static_assert(BLOCK_N == 64 || BLOCK_N == 80 || BLOCK_N == 128 || BLOCK_N == 160 || BLOCK_N == 176 ||
                    BLOCK_N == 192,
                "the QK^T wgmma's N");
  static_assert(HEAD_DIM == 64 || HEAD_DIM == 128 || HEAD_DIM == 256, "the PV wgmma's N");
  static_assert(!PINGPONG || CONSUMERS == 2, "pingpong takes two consumers");
  static_assert(OVERLAP || Q_STAGES == 1, "two Q stages pipeline the overlapped loop across tiles");

  extern __shared__ unsigned char smem_raw[];
  // The tiles start on the 1024-byte swizzle period; the mbarriers follow them (the launch adds
  // 1024 + 256 bytes of slack).
  const unsigned base = (smem_addr(smem_raw) + 1023) & ~1023u;
  constexpr unsigned TILE_M_BYTES = BLOCK_M * HEAD_DIM * sizeof(T);
  const unsigned q_smem = base;                            // Q_STAGES tiles
  const unsigned k_smem = q_smem + Q_STAGES * TILE_M_BYTES;  // STAGES tiles
  const unsigned v_smem = k_smem + STAGES * TILE_N_BYTES;          // STAGES tiles
  const unsigned bars = v_smem + STAGES * TILE_N_BYTES;  // 2 rings of Q_STAGES, then 4 of STAGES
  const auto q_full = [&](int s) { return bars + 8 * s; };
  const auto q_empty = [&](int s) { return bars + 8 * (Q_STAGES + s); };
  const unsigned kv_bars = bars + 8 * 2 * Q_STAGES;
  const auto k_full = [&](int s) { return kv_bars + 8 * s; };
  const auto v_full = [&](int s) { return kv_bars + 8 * (STAGES + s); };
  const auto k_empty = [&](int s) { return kv_bars + 8 * (2 * STAGES + s); };
  const auto v_empty = [&](int s) { return kv_bars + 8 * (3 * STAGES + s); };
  // The number of the tile each Q stage holds (-1: the block has no more), written by the producer
  // before it completes the stage's q_full, so a consumer's wait on q_full also orders its read.
  volatile int* tile_ids =
      reinterpret_cast<volatile int*>(smem_raw + (kv_bars + 8 * 4 * STAGES - smem_addr(smem_raw)));

  // Tiles: BLOCK_M query rows of one head of one batch, numbered batch by batch; within a batch,
  // causal tiles go longest rows first, heads fastest (the blocks drawing the last tiles get short
  // ones), the others head by head, rows fastest (the blocks running together then share a few
  // heads' K and V in L2; at 4096 tokens, with a wave spread over every head, ncu's DRAM rate times
  // the duration came to about 2.9 times cuDNN's traffic). Block x takes tile x first. With a block
  // per tile that is all; a persistent grid (a block per SM) then draws tiles gridDim.x,
  // gridDim.x + 1, ... from a counter, each block's producer taking the next as it finishes loading
  // a tile, so blocks that drew short causal tiles draw more, and the producer loads the next
  // tile's Q, K and V while the consumers finish this one's and write its output. The K/V ring runs
  // on over tile boundaries: `ring` counts the key blocks a block consumed before the tile.
  const int diagonal = seqlen_kv - seqlen_q;
  const int m_blocks = cdiv(seqlen_q, BLOCK_M);
  const int batch_tiles = m_blocks * heads;
  const int tiles = batch_tiles * batch;
  struct Tile {
    int m0, head, kv_head, batch, n_blocks, n_unmasked;
    int tail_keys;  // keys of the last key block that any row of the tile sees (1 .. BLOCK_N)
  };
  const auto tile_at = [&](int t) {
    Tile tile;
    tile.batch = t / batch_tiles;
    t %= batch_tiles;
    tile.m0 = (m_blocks - 1 - (CAUSAL ? t / heads : t % m_blocks)) * BLOCK_M;
    tile.head = CAUSAL ? t % heads : t / m_blocks;
    tile.kv_head = tile.head / (heads / kv_heads);
    const int n_end = CAUSAL ? min(seqlen_kv, tile.m0 + BLOCK_M + diagonal) : seqlen_kv;
    tile.n_blocks = n_end > 0 ? cdiv(n_end, BLOCK_N) : 0;
    tile.tail_keys = n_end - (tile.n_blocks - 1) * BLOCK_N;
    tile.n_unmasked = min(tile.n_blocks, seqlen_kv / BLOCK_N);
    if (CAUSAL) tile.n_unmasked = min(tile.n_unmasked, max(0, tile.m0 + diagonal + 1) / BLOCK_N);
    return tile;
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < Q_STAGES; ++s) {
      mbar_init(q_full(s), 1);
      mbar_init(q_empty(s), CONSUMERS * 4);  // every consumer warp is done with the tile's Q
    }
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(k_full(s), 1);  // the producer's arrival with the tile's byte count
      mbar_init(v_full(s), 1);
      mbar_init(k_empty(s), CONSUMERS * 4);  // every consumer warp is done reading
      mbar_init(v_empty(s), CONSUMERS * 4);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (threadIdx.x < 128) {
    // ---- producer: one thread issues every TMA copy ----
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
    if (threadIdx.x != 0) return;
    prefetch_tensor_map(&tmQ);
    prefetch_tensor_map(&tmK);
    prefetch_tensor_map(&tmV);
    // A box's coordinates, innermost first: (column, row, head, batch) or (column, head, row, batch).
    const auto load = [&](unsigned dst, const CUtensorMap* map, unsigned bar, int rows, int row0, int h, int batch) {
#pragma unroll
      for (int p = 0; p < PANELS; ++p) {
        if (BSHD)
          tma_load_4d(dst + p * rows * 128, map, bar, p * 64, h, row0, batch);
        else
          tma_load_4d(dst + p * rows * 128, map, bar, p * 64, row0, h, batch);
      }
    };
    // The counter (tile_counter[0]) counts the tiles drawn, tile_counter[1] the blocks done
    // drawing: the last of them leaves both zero for the next launch.
    const bool drawn = gridDim.x < tiles;
    int ring = 0;
    for (int t = blockIdx.x, round = 0;; ++round) {
      const int q_stage = round % Q_STAGES;
      mbar_wait(q_empty(q_stage), ((round / Q_STAGES) & 1) ^ 1);  // the consumers are done with its last Q
      tile_ids[q_stage] = t < tiles ? t : -1;
      if (t >= tiles) {
        mbar_arrive(q_full(q_stage));  // no more tiles: the consumers read -1 and stop
        break;
      }
      const Tile tile = tile_at(t);
      mbar_arrive_expect_tx(q_full(q_stage), TILE_M_BYTES);
      load(q_smem + q_stage * TILE_M_BYTES, &tmQ, q_full(q_stage), BLOCK_M, tile.m0, tile.head, tile.batch);
      for (int n = 0; n < tile.n_blocks; ++n, ++ring) {
        const int s = ring % STAGES;
        const unsigned lap = ((ring / STAGES) & 1) ^ 1;
        mbar_wait(k_empty(s), lap);
        mbar_arrive_expect_tx(k_full(s), TILE_N_BYTES);
        load(k_smem + s * TILE_N_BYTES, &tmK, k_full(s), BLOCK_N, n * BLOCK_N, tile.kv_head, tile.batch);
        mbar_wait(v_empty(s), lap);
        mbar_arrive_expect_tx(v_full(s), TILE_N_BYTES);
        load(v_smem + s * TILE_N_BYTES, &tmV, v_full(s), BLOCK_N, n * BLOCK_N, tile.kv_head, tile.batch);
      }
      t = drawn ? gridDim.x + static_cast<int>(atomicAdd(tile_counter, 1u)) : tiles;
    }
    // Every block increments the second counter after its last draw, so the last to do so knows
    // no draw is left.
    if (drawn && atomicAdd(tile_counter + 1, 1u) == gridDim.x - 1) {
      tile_counter[0] = 0;
      tile_counter[1] = 0;
    }
    return;
  }

  // ---- consumer warpgroups: 64 query rows each ----
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
  const int consumer = threadIdx.x / 128 - 1, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  Tile tile;
  int ring = 0;  // key blocks consumed before this tile: block n of the tile is in ring slot ring + n

  // Pingpong: consumer c issues its wgmma once the other has issued its own (named barrier 1 + c,
  // both warpgroups' 256 threads); consumer 1 lets consumer 0 go first. Every consumer issues the
  // same number of times (the block's key blocks, plus one), so the turns stay paired.
  const auto my_turn = [&] {
    if constexpr (PINGPONG) named_barrier_sync(1 + consumer, 256);
  };
  const auto pass_turn = [&] {
    if constexpr (PINGPONG) named_barrier_arrive(1 + (consumer ^ 1), 256);
  };
  if (PINGPONG && consumer == 1) named_barrier_arrive(1, 256);

  float acc_o[HEAD_DIM / 2];
  // Rows lane/4 and lane/4 + 8 of this warp's 16: running max (scaled, log2 units), sum, and the
  // factor O is rescaled by before the next P·V.
  float row_max[2], row_sum[2], rescale[2] = {1.0f, 1.0f};
  const int my_row = consumer * 64 + warp * 16 + lane / 4;  // in the block, h = 0
  // QKᵀ's A operand: this warpgroup's 64 rows of Q, K-major (LBO unused), 8-row groups 1024 apart.
  const unsigned long long q_desc0 = make_desc(q_smem + consumer * 64 * 128, 16, 1024);
  unsigned long long q_desc = q_desc0;  // the current tile's Q stage

  // Key block n of the current tile: its ring slot and the parity of the slot's current phase.
  const auto slot = [&](int n) { return (ring + n) % STAGES; };
  const auto phase = [&](int n) { return static_cast<unsigned>(((ring + n) / STAGES) & 1); };
  // Descriptors are the tile's base descriptor plus the byte offset / 16 of a panel or k-step
  // (every offset stays inside the 14-bit address field), so the loop adds constants.
  const unsigned long long k_desc = make_desc(k_smem, 16, 1024);
  const unsigned long long v_desc = make_desc(v_smem, BLOCK_N * 128, 1024);
  // S = Q·Kᵀ for the key block in ring slot `stage` (HEAD_DIM / 16 k-steps, four to a 64-column panel of 32 bytes each);
  // the first k-step overwrites S (scale-d 0), so S needs no zeroing. The caller has waited for the
  // tile, fences and commits: nothing may branch or touch the operand registers between the fence
  // and the last wgmma, or ptxas fences each one itself.
  auto issue_scores = [&](float (&s)[BLOCK_N / 2], int stage) {
    const unsigned long long k_tile = k_desc + stage * (TILE_N_BYTES >> 4);
#pragma unroll
    for (int ks = 0; ks < HEAD_DIM / 16; ++ks) {
      const unsigned long long a = q_desc + (((ks / 4) * BLOCK_M * 128 + (ks % 4) * 32) >> 4);
      const unsigned long long b = k_tile + (((ks / 4) * BLOCK_N * 128 + (ks % 4) * 32) >> 4);
      if (ks == 0)
        wgmma<KIND, BLOCK_N, 0, 0, 0>(s, a, b);
      else
        wgmma<KIND, BLOCK_N, 0, 0>(s, a, b);
    }
  };
  // O += P·V for the key block in ring slot `stage`: P from registers, V N-major (64-column panels
  // BLOCK_N * 128 bytes apart). As issue_scores, the caller waits, fences and commits.
  // `width` (Width<W>) is the number of keys the P·V runs over: BLOCK_N, or for a tile's last
  // block the smallest of 64 and 128 that covers the keys its rows see (keys_width): P is zero
  // past them, so the products it skips are the mask's. (The last block's QKᵀ runs whole: a
  // narrower one cost the overlapped loop's copy registers, and ptxas then spilled or serialized
  // the wgmma.)
  auto issue_pv = [&](const unsigned (&p)[BLOCK_N / 16][4], int stage, auto width) {
    constexpr int W = decltype(width)::value;
    const unsigned long long v_tile = v_desc + stage * (TILE_N_BYTES >> 4);
#pragma unroll
    for (int kt = 0; kt < W / 16; ++kt) wgmma_rs<KIND, HEAD_DIM, 1>(acc_o, p[kt], v_tile + ((kt * 16 * 128) >> 4));
  };
  // Calls f(Width<W>) with the P·V's keys for block n of tile t (see issue_pv). Callers branch
  // here around the whole sequence from the wgmma fence to the wait that retires it: a branch
  // between the fence and the last wgmma makes ptxas fence each one, and branches that merge while
  // wgmma are in flight made it serialize them (C7511).
  auto keys_width = [&](const Tile& t, int n, auto f) {
    const int keys = n == t.n_blocks - 1 ? t.tail_keys : BLOCK_N;
    if constexpr (BLOCK_N > 64)
      if (keys <= 64) return f(Width<64>{});
    if constexpr (BLOCK_N > 128)
      if (keys <= 128) return f(Width<128>{});
    return f(Width<BLOCK_N>{});
  };
  // One arrival per warp once its wgmma reading the stage have retired.
  auto wait_k = [&](int n) { mbar_wait(k_full(slot(n)), phase(n)); };
  auto wait_v = [&](int n) { mbar_wait(v_full(slot(n)), phase(n)); };
  auto release = [&](unsigned bar) {
    __syncwarp();
    if (lane == 0) mbar_arrive(bar);
  };

  // Mask, then the online softmax of key block n's scores, in place (they become unnormalized
  // probabilities); s[4j + 2h + e] is row my_row + 8h, column 8j + 2(lane%4) + e. Sets the factor
  // O is to be rescaled by before the next P·V. The maxima and sums run as four partial chains a
  // row, both rows interleaved: one serial chain of BLOCK_N / 4 dependent operations stalled the
  // warp on each one's latency.
  auto softmax = [&](float (&s)[BLOCK_N / 2], int n, auto masked) {
    constexpr int CHAINS = 4;
    float part[2][CHAINS];
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) part[h][c] = neg_inf();
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * j + 2 * h + e];
          if constexpr (decltype(masked)::value)
            if (hidden<CAUSAL>(tile.m0 + my_row + h * 8, n * BLOCK_N + 8 * j + 2 * (lane % 4) + e, seqlen_kv, diagonal))
              x = neg_inf();
          float& m = part[h][(2 * j + e) % CHAINS];
          m = fmaxf(m, x);
        }
    float shift[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float block_max = fmaxf(fmaxf(part[h][0], part[h][1]), fmaxf(part[h][2], part[h][3]));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
      rescale[h] = online_step(row_max[h], block_max, scale_log2, shift[h]);
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) part[h][c] = 0.0f;
#pragma unroll
    for (int j = 0; j < BLOCK_N / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          float& x = s[4 * j + 2 * h + e];
          x = fast_exp2(fmaf(x, scale_log2, -shift[h]));
          part[h][(2 * j + e) % CHAINS] += x;
        }
#pragma unroll
    for (int h = 0; h < 2; ++h)
      row_sum[h] = row_sum[h] * rescale[h] + ((part[h][0] + part[h][1]) + (part[h][2] + part[h][3]));
  };
  auto softmax_of = [&](float (&s)[BLOCK_N / 2], int n) {
    if (n < tile.n_unmasked)
      softmax(s, n, Flag<false>{});
    else
      softmax(s, n, Flag<true>{});
  };
  auto pack = [&](unsigned (&p)[BLOCK_N / 16][4], const float (&s)[BLOCK_N / 2]) {
#pragma unroll
    for (int kt = 0; kt < BLOCK_N / 16; ++kt)
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        p[kt][r] = pack2<T>(s[8 * kt + 2 * r], s[8 * kt + 2 * r + 1]);
        asm volatile("" : "+r"(p[kt][r])::"memory");  // as fence_accumulators: packed here, not under the fence
      }
  };
  // It writes registers the next wgmma reads: fence_accumulators keeps the compiler from sinking
  // the writes past wgmma_fence (ptxas would then fence every wgmma itself).
  auto rescale_o = [&] {
#pragma unroll
    for (int j = 0; j < HEAD_DIM / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        acc_o[4 * j + 2 * h] *= rescale[h];
        acc_o[4 * j + 2 * h + 1] *= rescale[h];
      }
    fence_accumulators(acc_o);
  };

  // A finished tile's output: O / sum and the row logsumexp, from its row statistics (the
  // running maximum and this thread's part of the sum). A quad of threads holds a row's columns
  // in 4-byte pairs, 8 apart; transposed within the quad (quad_transpose), each thread holds 8
  // consecutive columns and stores them as 16 bytes, so each row's stores fill whole 32-byte
  // sectors (the 4-byte stores wrote half sectors: ncu counted half of O's sectors as excess).
  const Strides qs = strides<BSHD, HEAD_DIM>(heads, seqlen_q);
  auto store = [&](const Tile& done, const float (&done_max)[2], const float (&done_sum)[2]) {
    T* o_base = o + done.batch * qs.batch + done.head * qs.head + done.m0 * qs.row;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float sum = done_sum[h];
      sum += __shfl_xor_sync(0xffffffffu, sum, 1);
      sum += __shfl_xor_sync(0xffffffffu, sum, 2);
      const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
      const int local = my_row + h * 8;
      const bool in_rows = done.m0 + local < seqlen_q;  // every lane shuffles; only these store
      T* out = o_base + local * qs.row;
#pragma unroll
      for (int g = 0; g < HEAD_DIM / 32; ++g) {
        unsigned x[4];  // columns 8 (4g + k) + 2 (lane % 4), two of them a register
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          const int j = 4 * g + k;
          x[k] = pack2<T>(acc_o[4 * j + 2 * h] * inv, acc_o[4 * j + 2 * h + 1] * inv);
        }
        quad_transpose(x, lane % 4);  // now columns 8 (4g + lane % 4) to + 7
        if (in_rows)
          *reinterpret_cast<uint4*>(out + 8 * (4 * g + lane % 4)) = make_uint4(x[0], x[1], x[2], x[3]);
      }
      if (in_rows && lane % 4 == 0)
        lse[((long long)done.batch * heads + done.head) * seqlen_q + done.m0 + local] = row_lse(done_max[h], sum);
    }
  };
  // The block's tiles, one a round: round r's Q stage holds its tile once the stage's q_full
  // completes (-1 where the block has no more). `round` counts the block's tiles begun.
  int round = 0, q_stage = 0;
  auto tile_of_round = [&](int r) {
    mbar_wait(q_full(r % Q_STAGES), (r / Q_STAGES) & 1);
    return tile_ids[r % Q_STAGES];
  };
  // A tile's start (its Q has loaded): fresh row statistics, its Q stage.
  auto begin_tile = [&](int t) {
    tile = tile_at(t);
    row_max[0] = row_max[1] = neg_inf();
    row_sum[0] = row_sum[1] = 0.0f;
    q_stage = round % Q_STAGES;
    q_desc = q_desc0 + q_stage * (TILE_M_BYTES >> 4);
  };
  // Block n's scores have retired: its K stage is free, and after the tile's last block so is Q.
  auto scores_retired = [&](int n) {
    release(k_empty(slot(n)));
    if (n == tile.n_blocks - 1) release(q_empty(q_stage));
  };
  auto zero_o = [&] {
#pragma unroll
    for (int i = 0; i < HEAD_DIM / 2; ++i) acc_o[i] = 0.0f;
    fence_accumulators(acc_o);
  };

  float s[BLOCK_N / 2];
  unsigned p[BLOCK_N / 16][4];
  // Block n's scores on their own (the consumer waits for them): its K stage (and after the
  // tile's last block Q) is then free.
  auto scores_alone = [&](int n) {
    wait_k(n);
    my_turn();
    wgmma_fence();
    issue_scores(s, slot(n));
    wgmma_commit();
    pass_turn();
    wgmma_wait<0>();
    fence_accumulators(s);
    scores_retired(n);
  };
  // Block n's P·V on its own, after which its V stage is free.
  auto pv_alone = [&](int n) {
    wait_v(n);
    my_turn();
    keys_width(tile, n, [&](auto w) {
      wgmma_fence();
      issue_pv(p, slot(n), w);
      wgmma_commit();
      pass_turn();
      wgmma_wait<0>();
      fence_accumulators(acc_o);
    });
    release(v_empty(slot(n)));
  };
  // A tile's start on its own: its first scores, softmax and P.
  auto start_tile = [&](int t) {
    zero_o();
    begin_tile(t);
    scores_alone(0);
    softmax_of(s, 0);
    pack(p, s);
  };
  if constexpr (!OVERLAP) {
    // Each block's scores, softmax and P·V in turn, the consumer waiting for its own products.
    for (int t = tile_of_round(0); t >= 0; t = tile_of_round(++round)) {
      zero_o();
      begin_tile(t);
      for (int n = 0; n < tile.n_blocks; ++n) {
        scores_alone(n);
        softmax_of(s, n);
        rescale_o();
        pack(p, s);
        pv_alone(n);
      }
      store(tile, row_max, row_sum);
      ring += tile.n_blocks;
    }
    return;
  }
  const int first = tile_of_round(0);
  if (first < 0) return;
  start_tile(first);
  while (true) {
    const int n_blocks = tile.n_blocks;
    // Block n's scores and block n-1's P·V in flight together; block n's softmax under the P·V.
    for (int n = 1; n < n_blocks; ++n) {
      rescale_o();
      wait_k(n);
      wait_v(n - 1);
      my_turn();
      wgmma_fence();
      issue_scores(s, slot(n));
      wgmma_commit();
      issue_pv(p, slot(n - 1), Width<BLOCK_N>{});
      wgmma_commit();
      pass_turn();
      wgmma_wait<1>();
      fence_accumulators(s);
      scores_retired(n);
      softmax_of(s, n);
      wgmma_wait<0>();
      fence_accumulators(acc_o);
      release(v_empty(slot(n - 1)));
      pack(p, s);
    }
    // The tile's last P·V.
    const int last = slot(n_blocks - 1);
    rescale_o();
    // On its own, then the output.
    auto finish_alone = [&] {
      pv_alone(n_blocks - 1);
      store(tile, row_max, row_sum);
    };
    if constexpr (Q_STAGES == 1) {
      // The next tile's Q loads only once this tile's last scores retired: it would hold this P·V
      // back, so the next tile starts from scratch.
      finish_alone();
      const int next = tile_of_round(round + 1);
      if (next < 0) return;
      ++round;
      ring += n_blocks;  // the next tile's block 0 is the ring's next slot
      start_tile(next);
      continue;
    }
    wait_v(n_blocks - 1);
    const int next = tile_of_round(round + 1);  // its Q loaded during this tile
    if (next < 0) {
      finish_alone();
      return;
    }
    // With the next tile's first scores: their softmax runs under this P·V, and this tile's output
    // is written once it retires.
    const Tile done = tile;
    const float done_max[2] = {row_max[0], row_max[1]}, done_sum[2] = {row_sum[0], row_sum[1]};
    ++round;
    ring += n_blocks;
    begin_tile(next);
    wait_k(0);
    my_turn();
    keys_width(done, n_blocks - 1, [&](auto w_last) {
      wgmma_fence();
      issue_scores(s, slot(0));
      wgmma_commit();
      issue_pv(p, last, w_last);
      wgmma_commit();
      pass_turn();
      wgmma_wait<1>();
      fence_accumulators(s);
      scores_retired(0);
      softmax_of(s, 0);
      wgmma_wait<0>();
      fence_accumulators(acc_o);
    });
    release(v_empty(last));
    store(done, done_max, done_sum);
    zero_o();
    pack(p, s);
  }
}
