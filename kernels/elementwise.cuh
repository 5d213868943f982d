// What the memory-bound kernels share: raw vector types by byte width (loads and stores move bits;
// the elements are unpacked in registers), hinted vector loads and stores, and conversions between
// the stored type and fp32.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace elementwise {

template <int BYTES> struct Raw;
template <> struct Raw<2> { using type = unsigned short; };
template <> struct Raw<4> { using type = unsigned; };
template <> struct Raw<8> { using type = uint2; };
template <> struct Raw<16> { using type = uint4; };

// A vector load or store, with the evict-first hint (ld.global.cs / st.global.cs) when STREAMING:
// for data read or written once, which should not push what is read again out of the caches.
template <int STREAMING, typename R>
__device__ __forceinline__ R load_vec(const R* p) {
  if constexpr (STREAMING) return __ldcs(p);
  else return *p;
}
template <int STREAMING, typename R>
__device__ __forceinline__ void store_vec(R* p, R v) {
  if constexpr (STREAMING) __stcs(p, v);
  else *p = v;
}

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// The V elements of T in a raw vector as fp32, and back (rounded to nearest).
template <typename T, int V, typename R>
__device__ __forceinline__ void unpack(R raw, float* out) {
  const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
  for (int i = 0; i < V; ++i) out[i] = to_float(e[i]);
}
template <typename T, int V, typename R>
__device__ __forceinline__ R pack(const float* in) {
  R raw;
  T* e = reinterpret_cast<T*>(&raw);
#pragma unroll
  for (int i = 0; i < V; ++i) e[i] = from_float<T>(in[i]);
  return raw;
}

// A copy of a raw vector the compiler cannot prove equal to the original (an empty asm that
// "changes" each word). Kernels that keep a row packed in registers and unpack it once per use
// unpack such copies: otherwise the compiler merges the unpackings (or hoists a loop-invariant
// one out of the loop) and keeps the fp32 results live instead, in the very registers packing
// saves (bf16's widening is a shift, which it would rather keep than redo).
__device__ __forceinline__ unsigned short opaque(unsigned short r) { asm volatile("" : "+h"(r)); return r; }
__device__ __forceinline__ unsigned opaque(unsigned r) { asm volatile("" : "+r"(r)); return r; }
__device__ __forceinline__ uint2 opaque(uint2 r) { asm volatile("" : "+r"(r.x), "+r"(r.y)); return r; }
__device__ __forceinline__ uint4 opaque(uint4 r) {
  asm volatile("" : "+r"(r.x), "+r"(r.y), "+r"(r.z), "+r"(r.w));
  return r;
}

// A row whose byte length is no multiple of VEC_BYTES (an odd vocabulary size), so rows start at
// every offset from a vector boundary: the elements before its first VEC_BYTES-aligned address
// (head) and after its last whole vector are loose, loaded one at a time; the rest is whole
// vectors from column head on. A kernel that stores with the same split assumes its output rows
// lie as its input rows do (two buffers from cudaMalloc, the same row length).
template <typename T, int VEC_BYTES>
struct ShiftedRow {
  static constexpr int V = VEC_BYTES / sizeof(T);
  static constexpr int MAX_LOOSE = 2 * V - 2;
  int head, vecs, loose;
  __device__ __forceinline__ ShiftedRow(const T* row, int cols) {
    const int off = static_cast<int>(reinterpret_cast<unsigned long long>(row) % VEC_BYTES) / sizeof(T);
    head = off ? V - off : 0;
    if (head > cols) head = cols;
    vecs = (cols - head) / V;
    loose = cols - vecs * V;
  }
  // The column of loose element t < loose.
  __device__ __forceinline__ int loose_col(int t) const { return t < head ? t : head + vecs * V + (t - head); }
};

// A thread's share of a row held by a group of GROUP threads (the register kernels), lane `lane`
// of the group: whole vectors lane, lane + GROUP, ... below `vecs` (counted from column head), and,
// where the row is shifted (ShiftedRow), loose elements lane, lane + GROUP, ... below `loose`,
// LOOSE per thread at most. An inactive group (past the last row) holds nothing but still takes
// part in its block's barriers.
template <typename T, int VEC_BYTES, int COLS, int GROUP>
struct GroupRow {
  static constexpr int V = VEC_BYTES / sizeof(T);
  static constexpr int VECS = COLS / V;
  static constexpr bool SHIFTED = COLS % V != 0;
  static constexpr int LOOSE = SHIFTED ? (ShiftedRow<T, VEC_BYTES>::MAX_LOOSE + GROUP - 1) / GROUP : 1;
  int lane, head = 0, vecs = VECS, loose = 0;
  bool active;
  __device__ __forceinline__ GroupRow(const T* row, int lane, bool active) : lane(lane), active(active) {
    if constexpr (SHIFTED) {
      const ShiftedRow<T, VEC_BYTES> split(row, COLS);
      head = split.head, vecs = split.vecs, loose = split.loose;
    }
  }
  __device__ __forceinline__ bool held(int k) const {
    return active && ((!SHIFTED && VECS % GROUP == 0) || lane + k * GROUP < vecs);
  }
  __device__ __forceinline__ bool has_loose(int q) const { return SHIFTED && active && lane + q * GROUP < loose; }
  // The column of this thread's loose element q (ShiftedRow::loose_col).
  __device__ __forceinline__ int loose_col(int q) const {
    const int t = lane + q * GROUP;
    return t < head ? t : head + vecs * V + (t - head);
  }
};

// One block's share of a row split over a cluster of blocks of SLICE whole vectors each: whole
// vectors [first, end) counted from column head, and, where the row is shifted (ShiftedRow), one
// of its loose elements for each of the first block's first threads (loose_col, else -1).
template <typename T, int VEC_BYTES, int COLS, int SLICE>
struct ClusterSlice {
  static constexpr int V = VEC_BYTES / sizeof(T);
  static constexpr bool SHIFTED = COLS % V != 0;
  int head = 0, first, end, loose_col = -1;
  __device__ __forceinline__ ClusterSlice(const T* row, unsigned rank) {
    int vecs = COLS / V;
    if constexpr (SHIFTED) {
      const ShiftedRow<T, VEC_BYTES> split(row, COLS);
      head = split.head, vecs = split.vecs;
      if (rank == 0 && static_cast<int>(threadIdx.x) < split.loose) loose_col = split.loose_col(threadIdx.x);
    }
    first = rank * SLICE;
    end = first + SLICE < vecs ? first + SLICE : vecs;
  }
};

// Two adjacent elements of T as fp32, and back (rounded to nearest), for kernels that work in
// pairs. A pair of a 2-byte type is one 32-bit word, the first element in its low half, and one
// paired instruction converts it each way where one element at a time would take two or three
// (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 on sm_80+); a float pair is two words.
template <typename T> struct PairBits { using type = unsigned; };
template <> struct PairBits<float> { using type = uint2; };

template <typename T> __device__ __forceinline__ float2 unpack_pair(typename PairBits<T>::type bits);
template <> __device__ __forceinline__ float2 unpack_pair<float>(uint2 bits) {
  return make_float2(__uint_as_float(bits.x), __uint_as_float(bits.y));
}
template <> __device__ __forceinline__ float2 unpack_pair<__half>(unsigned bits) {
  return __half22float2(*reinterpret_cast<const __half2*>(&bits));
}
// A bf16 is the top half of the fp32 with the same value, so widening is a shift or a mask.
template <> __device__ __forceinline__ float2 unpack_pair<__nv_bfloat16>(unsigned bits) {
  return make_float2(__uint_as_float(bits << 16), __uint_as_float(bits & 0xffff0000u));
}

template <typename T> __device__ __forceinline__ typename PairBits<T>::type pack_pair(float2 v);
template <> __device__ __forceinline__ uint2 pack_pair<float>(float2 v) {
  return make_uint2(__float_as_uint(v.x), __float_as_uint(v.y));
}
template <> __device__ __forceinline__ unsigned pack_pair<__half>(float2 v) {
  const __half2 h = __floats2half2_rn(v.x, v.y);
  return *reinterpret_cast<const unsigned*>(&h);
}
template <> __device__ __forceinline__ unsigned pack_pair<__nv_bfloat16>(float2 v) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(v.x, v.y);
  return *reinterpret_cast<const unsigned*>(&h);
}

}  // namespace elementwise
