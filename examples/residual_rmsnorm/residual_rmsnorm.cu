// Fused residual add + RMSNorm over rows of `hidden` elements, each row held in registers:
//   sum = T(x + residual)                              (the new residual stream, written out)
//   y   = T(sum * rsqrt(mean(sum^2) + eps) * weight)   (the normalized tensor)
// Math in fp32 from the rounded sum, as a model that stores the residual in T computes it.
//
// A block of BLOCK threads holds ROWS rows, BLOCK / ROWS threads a row (a warp or more), each
// thread ITEMS vectors of VEC elements of it. Tunables: VEC, BLOCK, ITEMS, ROWS (a row per warp
// leaves no partial last wave of blocks at large row counts), HINTS (how x, residual, sum and y,
// each touched once, use L2: 0 no hint; 1 the evict-first hint on loads and stores, so that they
// do not push the weight, which every row reads, out of L2; 2 loads evict-first and stores
// evict-last by an L2 cache policy, so the outputs stay in L2 for the kernel that reads them next
// and the inputs, dead once read, are what L2 gives up first; 3 loads evict-first, stores plain),
// MIN_BLOCKS (blocks an SM must hold: ptxas keeps the
// registers down to fit them), PERSISTENT with BLOCKS_PER_SM (a grid of a few blocks per SM that
// load their next rows while they finish the current ones, instead of one block per row group),
// SUM_LATE (store the sum beside y after the reduction, so each thread's writes go out together
// instead of half of them before the block's barrier).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace residual_rmsnorm_detail {

__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }

template <int BYTES> struct Raw;
template <> struct Raw<16> { using type = uint4; };
template <> struct Raw<8> { using type = uint2; };
template <> struct Raw<4> { using type = unsigned; };

template <typename T, int N>
union Pack {
  T v[N];
  typename Raw<sizeof(T) * N>::type raw;
};

// An L2 cache policy for the ".L2::cache_hint" loads and stores below: every access it covers
// gets the priority (the fraction 1.0 covers all of them).
__device__ __forceinline__ unsigned long long evict_first_policy() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ unsigned long long evict_last_policy() {
  unsigned long long policy;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

__device__ __forceinline__ uint4 load_hinted(const uint4* p, unsigned long long policy) {
  uint4 v;
  asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ uint2 load_hinted(const uint2* p, unsigned long long policy) {
  uint2 v;
  asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;"
               : "=r"(v.x), "=r"(v.y) : "l"(p), "l"(policy));
  return v;
}
__device__ __forceinline__ void store_hinted(uint4* p, uint4 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;"
               :: "l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(policy) : "memory");
}
__device__ __forceinline__ void store_hinted(uint2* p, uint2 v, unsigned long long policy) {
  asm volatile("st.global.L2::cache_hint.v2.u32 [%0], {%1, %2}, %3;"
               :: "l"(p), "r"(v.x), "r"(v.y), "l"(policy) : "memory");
}

template <int HINTS, typename P>
__device__ __forceinline__ P load(const P* p) {
  P out;
  if (HINTS == 1)
    out.raw = __ldcs(&p->raw);
  else if (HINTS >= 2)
    out.raw = load_hinted(&p->raw, evict_first_policy());
  else
    out.raw = p->raw;
  return out;
}
template <int HINTS, typename P>
__device__ __forceinline__ void store(P* p, const P& v) {
  if (HINTS == 1)
    __stcs(&p->raw, v.raw);
  else if (HINTS == 2)
    store_hinted(&p->raw, v.raw, evict_last_policy());
  else
    p->raw = v.raw;
}

}  // namespace residual_rmsnorm_detail

template <typename T, int VEC, int BLOCK, int ITEMS, int ROWS, int HINTS, int MIN_BLOCKS, int PERSISTENT,
          int SUM_LATE>
__global__ void __launch_bounds__(BLOCK, MIN_BLOCKS)
    residual_rmsnorm(const T* __restrict__ x, const T* __restrict__ residual, const T* __restrict__ weight,
                     T* __restrict__ sum, T* __restrict__ y, int rows, int hidden, float eps) {
  using namespace residual_rmsnorm_detail;
  using P = Pack<T, VEC>;
  constexpr int TPR = BLOCK / ROWS;  // threads a row
  constexpr int WARPS = TPR / 32;    // warps a row
  // Two sets, by the parity of the block's pass: a thread writing the next pass's sums cannot
  // overwrite ones another thread is still reading (it passed a barrier that one has reached).
  __shared__ float warp_sums[2][ROWS][WARPS];
  const int group = threadIdx.x / TPR, t = threadIdx.x % TPR;
  // PERSISTENT: the grid is a few blocks per SM, each taking every gridDim.x-th set of ROWS rows
  // and loading its next rows while it reduces and writes the current ones; otherwise one pass.
  const long long step = (long long)gridDim.x * ROWS;
  P a[ITEMS], b[ITEMS];
  auto load_rows = [&](long long r) {
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int col = (it * TPR + t) * VEC;
      if (r >= rows || col >= hidden) break;
      a[it] = load<HINTS>(reinterpret_cast<const P*>(x + r * hidden + col));
      b[it] = load<HINTS>(reinterpret_cast<const P*>(residual + r * hidden + col));
    }
  };
  long long row = (long long)blockIdx.x * ROWS + group;
  load_rows(row);
  for (int pass = 0; (long long)blockIdx.x * ROWS + pass * step < rows; ++pass, row += step) {
    const bool live = row < rows;  // every thread of the block reaches the barrier below
    const long long base = row * hidden;
    P s[ITEMS];
    float squares = 0;
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int col = (it * TPR + t) * VEC;
      if (!live || col >= hidden) break;
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        s[it].v[i] = from_float<T>(to_float(a[it].v[i]) + to_float(b[it].v[i]));
        const float f = to_float(s[it].v[i]);
        squares += f * f;
      }
      if (!SUM_LATE) store<HINTS>(reinterpret_cast<P*>(sum + base + col), s[it]);
    }
    if (PERSISTENT) load_rows(row + step);  // in flight while this pass reduces and writes
    for (int o = 16; o > 0; o >>= 1) squares += __shfl_xor_sync(0xffffffffu, squares, o);
    if (WARPS > 1) {
      if (t % 32 == 0) warp_sums[pass & 1][group][t / 32] = squares;
      __syncthreads();
      squares = 0;
#pragma unroll
      for (int w = 0; w < WARPS; ++w) squares += warp_sums[pass & 1][group][w];
    }
    const float rstd = rsqrtf(squares / hidden + eps);
#pragma unroll
    for (int it = 0; it < ITEMS; ++it) {
      const int col = (it * TPR + t) * VEC;
      if (!live || col >= hidden) break;
      const P w = *reinterpret_cast<const P*>(weight + col);
      if (SUM_LATE) store<HINTS>(reinterpret_cast<P*>(sum + base + col), s[it]);
      P out;
#pragma unroll
      for (int i = 0; i < VEC; ++i) out.v[i] = from_float<T>(to_float(s[it].v[i]) * rstd * to_float(w.v[i]));
      store<HINTS>(reinterpret_cast<P*>(y + base + col), out);
    }
    if (!PERSISTENT) break;
  }
}
