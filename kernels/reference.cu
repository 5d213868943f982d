// The memory-bound families' references: simple kernels that share no code with the candidates,
// computing in fp32 or fp64 from the inputs as stored, so that a candidate is judged against the
// exact answer rounded once. Compiled by NVRTC on the device, once per process.
//
//   ktune_ref_add<T>(a, b, ref, n)            ref[i] = a[i] + b[i] in fp32 (exact for fp16/bf16
//                                             inputs; the correctly rounded sum for fp32)
//   ktune_ref_softmax<T>(x, ref, rows, cols)  one block per row, fp64 max and sum:
//                                             ref = exp(x - max) / sum(exp(x - max))
//   ktune_ref_norm<T>(x, w, b, ref, mean, rstd, rows, cols, eps, rms)
//                                             one block per row, fp64 two-pass statistics:
//                                             LayerNorm (rms 0; b may be null) or RMSNorm
//                                             (rms 1, b unused)
//   ktune_ref_layernorm_bwd_dx<T>(x, w, dy, mean, rstd, ref, rows, cols)
//                                             one block per row, fp64 row sums
//   ktune_ref_layernorm_bwd_dwdb<T>(x, dy, mean, rstd, dw, db, rows, cols)
//                                             one thread per column, fp64 sums over the rows
//   ktune_ref_attention_softmax(s, lse, ...), ktune_unfused_attention_softmax<T>(s, lse, ...)
//                                             attention's softmax over score rows, in place
//                                             (below): the fp32 reference's in fp64, and the
//                                             unfused same-dtype yardstick's in fp32
//   ktune_ref_bias_gelu_dropout<T>(x, bias, ref, rows, cols, p, seed)
//                                             one element per thread, fp64 GELU (erf form); the
//                                             mask from its own cuRAND Philox call per element,
//                                             by the rule in kernels/bias_gelu_dropout.cu
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <curand_philox4x32_x.h>

__device__ __forceinline__ float ktune_ref_float(float x) { return x; }
__device__ __forceinline__ float ktune_ref_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float ktune_ref_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__global__ void ktune_ref_add(const T* a, const T* b, float* ref, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    ref[i] = ktune_ref_float(a[i]) + ktune_ref_float(b[i]);
}

// A block-wide reduction over 256 threads through shared memory; every thread gets the result.
template <typename Op>
__device__ double ktune_ref_block_reduce(double v, double* scratch, Op op) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] = op(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    __syncthreads();
  }
  double r = scratch[0];
  __syncthreads();
  return r;
}

// Launch: grid (rows), block (256).
template <typename T>
__global__ void ktune_ref_softmax(const T* x, float* ref, long long rows, long long cols) {
  __shared__ double scratch[256];
  const T* in = x + blockIdx.x * cols;
  double m = -1.0 / 0.0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmax(m, (double)ktune_ref_float(in[c]));
  m = ktune_ref_block_reduce(m, scratch, [](double a, double b) { return fmax(a, b); });
  double s = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += exp((double)ktune_ref_float(in[c]) - m);
  s = ktune_ref_block_reduce(s, scratch, [](double a, double b) { return a + b; });
  for (long long c = threadIdx.x; c < cols; c += blockDim.x)
    ref[blockIdx.x * cols + c] = (float)(exp((double)ktune_ref_float(in[c]) - m) / s);
}

// Launch: grid (rows), block (256). mean is written for LayerNorm only.
template <typename T>
__global__ void ktune_ref_norm(const T* x, const T* w, const T* b, float* ref, float* mean_out, float* rstd_out,
                               long long rows, long long cols, float eps, int rms) {
  __shared__ double scratch[256];
  const T* in = x + blockIdx.x * cols;
  const auto sum = [](double a, double b) { return a + b; };
  double mean = 0;
  if (!rms) {
    double s = 0;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += ktune_ref_float(in[c]);
    mean = ktune_ref_block_reduce(s, scratch, sum) / cols;
  }
  double q = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    const double d = ktune_ref_float(in[c]) - mean;
    q += d * d;
  }
  const double rstd = 1.0 / sqrt(ktune_ref_block_reduce(q, scratch, sum) / cols + (double)eps);
  if (threadIdx.x == 0) {
    if (!rms) mean_out[blockIdx.x] = (float)mean;
    rstd_out[blockIdx.x] = (float)rstd;
  }
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    double v = (ktune_ref_float(in[c]) - mean) * rstd * ktune_ref_float(w[c]);
    if (!rms && b) v += ktune_ref_float(b[c]);  // b null: LayerNorm without a bias
    ref[blockIdx.x * cols + c] = (float)v;
  }
}

// Launch: grid (rows), block (256). xhat = (x - mean) * rstd, g = w * dy:
// dx = (g - (xhat * mean(g * xhat) + mean(g))) * rstd.
template <typename T>
__global__ void ktune_ref_layernorm_bwd_dx(const T* x, const T* w, const T* dy, const float* mean, const float* rstd,
                                           float* ref, long long rows, long long cols) {
  __shared__ double scratch[256];
  const long long base = blockIdx.x * cols;
  const double mu = mean[blockIdx.x], rs = rstd[blockIdx.x];
  const auto sum = [](double a, double b) { return a + b; };
  double gx = 0, g = 0;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    const double gc = (double)ktune_ref_float(w[c]) * ktune_ref_float(dy[base + c]);
    gx += gc * ((ktune_ref_float(x[base + c]) - mu) * rs);
    g += gc;
  }
  const double c1 = ktune_ref_block_reduce(gx, scratch, sum) / cols;
  const double c2 = ktune_ref_block_reduce(g, scratch, sum) / cols;
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    const double xhat = (ktune_ref_float(x[base + c]) - mu) * rs;
    const double gc = (double)ktune_ref_float(w[c]) * ktune_ref_float(dy[base + c]);
    ref[base + c] = (float)((gc - (xhat * c1 + c2)) * rs);
  }
}

// Launch: one thread per column. dw = sum over rows of dy * xhat, db = sum over rows of dy.
template <typename T>
__global__ void ktune_ref_layernorm_bwd_dwdb(const T* x, const T* dy, const float* mean, const float* rstd, float* dw,
                                             float* db, long long rows, long long cols) {
  const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (c >= cols) return;
  double sw = 0, sb = 0;
  for (long long r = 0; r < rows; ++r) {
    const double d = ktune_ref_float(dy[r * cols + c]);
    sw += d * ((ktune_ref_float(x[r * cols + c]) - (double)mean[r]) * rstd[r]);
    sb += d;
  }
  dw[c] = (float)sw;
  db[c] = (float)sb;
}
// Launch: any grid (it strides), any block. The mask rule, restated here on purpose: element i
// keeps iff 16-bit half h = i % 8 of Philox4x32-10(counter {lo32(i/8), hi32(i/8), 0, 0}, key
// {lo32(seed), hi32(seed)}), that is (word (h/2) >> (16 * (h%2))) & 0xffff with the words in the
// order x, y, z, w, is >= (uint32)(p * 2^16). One Philox call per element (eight times the work of
// a candidate's, and sharing none of its indexing).
template <typename T>
__global__ void ktune_ref_bias_gelu_dropout(const T* x, const T* bias, float* ref, long long rows, long long cols,
                                            float p, unsigned long long seed) {
  const unsigned threshold16 = (unsigned)((double)p * 65536.0);
  const double scale = 1.0 / (1.0 - (double)p);
  const long long n = rows * cols;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const unsigned long long group = (unsigned long long)i >> 3;
    const uint4 r = curand_Philox4x32_10(make_uint4((unsigned)group, (unsigned)(group >> 32), 0u, 0u),
                                         make_uint2((unsigned)seed, (unsigned)(seed >> 32)));
    const unsigned h = (unsigned)(i & 7);
    const unsigned w = h / 2 == 0 ? r.x : h / 2 == 1 ? r.y : h / 2 == 2 ? r.z : r.w;
    const bool keep = ((w >> (16 * (h & 1))) & 0xffffu) >= threshold16;
    const double z = (double)ktune_ref_float(x[i]) + (double)ktune_ref_float(bias[i % cols]);
    const double gelu = 0.5 * z * (1.0 + erf(z * 0.70710678118654752440));
    ref[i] = keep ? (float)(gelu * scale) : 0.0f;
  }
}

template <typename T> __device__ __forceinline__ T ktune_attention_store(double p);
template <> __device__ __forceinline__ float ktune_attention_store<float>(double p) { return (float)p; }
template <typename T> __device__ __forceinline__ T ktune_attention_store(float p);
template <> __device__ __forceinline__ __half ktune_attention_store<__half>(float p) { return __float2half_rn(p); }
template <> __device__ __forceinline__ __nv_bfloat16 ktune_attention_store<__nv_bfloat16>(float p) {
  return __float2bfloat16_rn(p);
}

// Attention's softmax over score rows, in place: `rows` rows of `cols` scores, a batch of heads'
// seqlen_q rows each (row r is query r % seqlen_q of head r / seqlen_q). p = exp(scale * s - max)
// / sum over the keys the query sees (key j of query i hidden when causal and j > i + diagonal),
// 0 for hidden keys; lse[lse_offset + (r / seqlen_q) * lse_stride + r % seqlen_q] = the natural
// logsumexp of the scaled visible scores, -inf for a row that sees none.
//   ktune_ref_attention_softmax: fp32 scores, fp64 max and sum (the fp32 reference).
//   ktune_unfused_attention_softmax<T>: scores in T, fp32 math, P rounded to T (the math path
//   of a framework's unfused attention, the same-dtype yardstick).
// Launch: grid (rows), block (256).
template <typename T, typename Acc>
__device__ void ktune_attention_softmax_row(T* s, float* lse, long long cols, int seqlen_q, int causal,
                                            int diagonal, Acc scale, long long lse_offset, long long lse_stride) {
  __shared__ Acc scratch[256];
  const long long r = blockIdx.x;
  const int query = static_cast<int>(r % seqlen_q);
  T* row = s + r * cols;
  const long long visible = causal ? (query + diagonal + 1 < cols ? query + diagonal + 1 : cols) : cols;
  Acc m = -1.0 / 0.0;
  for (long long c = threadIdx.x; c < visible; c += blockDim.x) m = fmax(m, scale * (Acc)ktune_ref_float(row[c]));
  scratch[threadIdx.x] = m;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] = fmax(scratch[threadIdx.x], scratch[threadIdx.x + half]);
    __syncthreads();
  }
  m = scratch[0];
  __syncthreads();
  Acc sum = 0;
  if (visible > 0)
    for (long long c = threadIdx.x; c < visible; c += blockDim.x) sum += exp(scale * (Acc)ktune_ref_float(row[c]) - m);
  scratch[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] += scratch[threadIdx.x + half];
    __syncthreads();
  }
  sum = scratch[0];
  for (long long c = threadIdx.x; c < cols; c += blockDim.x) {
    const Acc p = c < visible ? exp(scale * (Acc)ktune_ref_float(row[c]) - m) / sum : 0;
    row[c] = ktune_attention_store<T>(p);
  }
  if (threadIdx.x == 0)
    lse[lse_offset + (r / seqlen_q) * lse_stride + query] = visible > 0 ? (float)(m + log(sum)) : -1.0f / 0.0f;
}

__global__ void ktune_ref_attention_softmax(float* s, float* lse, long long cols, int seqlen_q, int causal,
                                            int diagonal, double scale, long long lse_offset, long long lse_stride) {
  ktune_attention_softmax_row<float, double>(s, lse, cols, seqlen_q, causal, diagonal, scale, lse_offset, lse_stride);
}

template <typename T>
__global__ void ktune_unfused_attention_softmax(T* s, float* lse, long long cols, int seqlen_q, int causal,
                                                int diagonal, float scale, long long lse_offset, long long lse_stride) {
  ktune_attention_softmax_row<T, float>(s, lse, cols, seqlen_q, causal, diagonal, scale, lse_offset, lse_stride);
}
