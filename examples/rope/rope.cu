// Rotary position embedding (GPT-NeoX style), in place on x[tokens][heads][head_dim]:
//   for i < head_dim/2:  x[i]            = x[i] * cos[t][i] - x[i + d/2] * sin[t][i]
//                        x[i + head_dim/2] = x[i + d/2] * cos[t][i] + x[i] * sin[t][i]
// with cos_sin[t] = [cos[t][0..d/2), sin[t][0..d/2)] (vLLM's cos_sin_cache for positions 0..tokens-1).
// Math in fp32, one rounding to T per output.
//
// A block holds one token's LANES x ROWS threads: LANES = HEAD_DIM / 2 / VEC threads cover one
// head's pairs, VEC of them each with one vector load per half; ROWS heads at a time, each thread
// going over HEADS_PER_THREAD heads with its cos and sin loaded once. Tunables: VEC (elements per
// vector), ROWS, HEADS_PER_THREAD, STREAMING (x is read and written once: the evict-first hint
// keeps it from pushing the cos/sin rows, which every head reads, out of L2).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace rope_detail {

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

template <int STREAMING, typename P>
__device__ __forceinline__ P load(const P* p) {
  P out;
  out.raw = STREAMING ? __ldcs(&p->raw) : p->raw;
  return out;
}
template <int STREAMING, typename P>
__device__ __forceinline__ void store(P* p, const P& v) {
  if (STREAMING)
    __stcs(&p->raw, v.raw);
  else
    p->raw = v.raw;
}

}  // namespace rope_detail

template <typename T, int HEAD_DIM, int VEC, int ROWS, int HEADS_PER_THREAD, int STREAMING>
__global__ void __launch_bounds__(HEAD_DIM / 2 / VEC * ROWS)
    rope_neox(T* __restrict__ x, const T* __restrict__ cos_sin, int tokens, int heads) {
  using namespace rope_detail;
  using P = Pack<T, VEC>;
  constexpr int HALF = HEAD_DIM / 2;
  constexpr int LANES = HALF / VEC;
  const int lane = threadIdx.x % LANES, row = threadIdx.x / LANES;
  const long long token = blockIdx.y;
  const P c = *reinterpret_cast<const P*>(cos_sin + token * HEAD_DIM + lane * VEC);
  const P s = *reinterpret_cast<const P*>(cos_sin + token * HEAD_DIM + HALF + lane * VEC);
  const int first_head = (blockIdx.x * ROWS + row) * HEADS_PER_THREAD;
  P lo[HEADS_PER_THREAD], hi[HEADS_PER_THREAD];
#pragma unroll
  for (int h = 0; h < HEADS_PER_THREAD; ++h) {  // every load first, then the math
    if (first_head + h >= heads) break;
    T* head = x + (token * heads + first_head + h) * HEAD_DIM + lane * VEC;
    lo[h] = load<STREAMING>(reinterpret_cast<const P*>(head));
    hi[h] = load<STREAMING>(reinterpret_cast<const P*>(head + HALF));
  }
#pragma unroll
  for (int h = 0; h < HEADS_PER_THREAD; ++h) {
    if (first_head + h >= heads) break;
    P out_lo, out_hi;
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
      const float x1 = to_float(lo[h].v[i]), x2 = to_float(hi[h].v[i]);
      const float cf = to_float(c.v[i]), sf = to_float(s.v[i]);
      out_lo.v[i] = from_float<T>(x1 * cf - x2 * sf);
      out_hi.v[i] = from_float<T>(x2 * cf + x1 * sf);
    }
    T* head = x + (token * heads + first_head + h) * HEAD_DIM + lane * VEC;
    store<STREAMING>(reinterpret_cast<P*>(head), out_lo);
    store<STREAMING>(reinterpret_cast<P*>(head + HALF), out_hi);
  }
}
