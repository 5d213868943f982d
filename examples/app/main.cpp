// ktune_app BUNDLE [M N K]: launches ktune's tuned kernels from a bundle (`ktune export --bundle`)
// through the runtime library, as an application would, and checks them:
//   - gemm fp16 (layout rr) at M x N x K (default 4096^3), against cuBLAS on the same inputs;
//   - gemm at a shape near it that no row was tuned for (M - 96, N + 64, K), the same check;
//   - add fp16 over 2^26 elements, against the sum computed on the host.
// For each it prints the row that answered (exact or nearest, and how far), how the kernel was
// obtained, and the time per call through the runtime (CUDA events over back-to-back calls).
// Then the host's price of the runtime: microseconds of CPU per Bundle::launch() of the add
// kernel against a raw cuLaunchKernel of the same function with the same arguments.
// Exit 0 when every result is within tolerance.
#include <cuda.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <ktune/runtime.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(2);
  }
}

std::vector<__half> random_halves(size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<__half> v(n);
  for (auto& x : v) x = __float2half(normal(rng));
  return v;
}

template <typename T>
T* device_copy(const std::vector<T>& host) {
  T* d = nullptr;
  check(cudaMalloc(&d, host.size() * sizeof(T)), "cudaMalloc");
  check(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  return d;
}

void describe(const char* what, const ktune::runtime::Choice& c) {
  std::printf("%s: %s row tuned at", what, c.exact() ? "exact" : "nearest");
  for (const auto& [name, value] : c.tuned_dims) std::printf(" %s=%lld", name.c_str(), static_cast<long long>(value));
  std::printf(" (distance %.3f) on %s; %s from %s; grid %u block %u smem %u\n", c.distance, c.gpu.c_str(),
              c.kernel_name.c_str(), c.kernel_from.c_str(), c.grid[0], c.block[0], c.shared_bytes);
  for (const std::string& s : c.passed_over) std::printf("  passed over: %s\n", s.c_str());
}

// Milliseconds per call of `launch`, over `calls` back-to-back calls after a warmup.
template <typename F>
double per_call_ms(F&& launch, int calls, cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int i = 0; i < calls; ++i) launch();
  check(cudaEventRecord(stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return ms / calls;
}

// C = A * B through the bundle, against cuBLAS's fp32-output GEMM of the same inputs: the largest
// error relative to the largest reference value, which fp16 output holds to about 1e-3.
bool gemm_case(ktune::runtime::Bundle& bundle, cublasHandle_t blas, cudaStream_t stream, long long m, long long n,
               long long k, const char* what) {
  const auto a_host = random_halves(static_cast<size_t>(m * k), 1, 1.0f);
  const auto b_host = random_halves(static_cast<size_t>(k * n), 2, 1.0f / std::sqrt(static_cast<float>(k)));
  __half* a = device_copy(a_host);
  __half* b = device_copy(b_host);
  __half* c = nullptr;
  float* ref = nullptr;
  check(cudaMalloc(&c, m * n * sizeof(__half)), "cudaMalloc");
  check(cudaMalloc(&ref, m * n * sizeof(float)), "cudaMalloc");
  check(cudaMemset(c, 0xff, m * n * sizeof(__half)), "cudaMemset");  // NaNs: an unwritten output shows

  const ktune::runtime::Problem problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, "fp16", {{"layout", "rr"}}};
  const ktune::runtime::Choice choice = bundle.launch(problem, {{"A", a}, {"B", b}, {"C", c}}, stream);
  describe(what, choice);
  // Row-major C = A*B is column-major C^T = B^T A^T.
  const float one = 1.0f, zero = 0.0f;
  check(cublasSetStream(blas, stream), "cublasSetStream");
  check(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &one,
                     b, CUDA_R_16F, static_cast<int>(n), a, CUDA_R_16F, static_cast<int>(k), &zero, ref, CUDA_R_32F,
                     static_cast<int>(n), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
        "cublasGemmEx");
  check(cudaStreamSynchronize(stream), "the GEMM");
  std::vector<__half> out(static_cast<size_t>(m * n));
  std::vector<float> expect(static_cast<size_t>(m * n));
  check(cudaMemcpy(out.data(), c, out.size() * sizeof(__half), cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(expect.data(), ref, expect.size() * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
  double worst = 0, scale = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    const double d = std::fabs(static_cast<double>(__half2float(out[i])) - expect[i]);
    worst = std::isfinite(d) ? std::max(worst, d) : INFINITY;
    scale = std::max(scale, static_cast<double>(std::fabs(expect[i])));
  }
  const double rel = worst / scale;
  const double ms = per_call_ms([&] { bundle.launch(problem, {{"A", a}, {"B", b}, {"C", c}}, stream); }, 50, stream);
  const double tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12;
  std::printf("  %lldx%lldx%lld: max error %.2e of the largest output (%s), %.4f ms a call through the runtime, %.0f TFLOPS (tuned: %.4f ms)\n",
              m, n, k, rel, rel < 2e-3 ? "ok" : "WRONG", ms, tflops, choice.tuned_ms);
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c), static_cast<void*>(ref)})
    check(cudaFree(p), "cudaFree");
  return rel < 2e-3;
}

bool add_case(ktune::runtime::Bundle& bundle, cudaStream_t stream, long long count) {
  const auto a_host = random_halves(static_cast<size_t>(count), 3, 1.0f);
  const auto b_host = random_halves(static_cast<size_t>(count), 4, 1.0f);
  __half* a = device_copy(a_host);
  __half* b = device_copy(b_host);
  __half* c = nullptr;
  check(cudaMalloc(&c, count * sizeof(__half)), "cudaMalloc");
  check(cudaMemset(c, 0xff, count * sizeof(__half)), "cudaMemset");
  const ktune::runtime::Problem problem{"add", {{"N", count}}, "fp16", {}};
  const ktune::runtime::Choice choice = bundle.launch(problem, {{"A", a}, {"B", b}, {"C", c}}, stream);
  describe("add", choice);
  check(cudaStreamSynchronize(stream), "the add");
  std::vector<__half> out(static_cast<size_t>(count));
  check(cudaMemcpy(out.data(), c, out.size() * sizeof(__half), cudaMemcpyDeviceToHost), "cudaMemcpy");
  long long wrong = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    // The fp32 sum of two halves is exact; the kernel rounds it once to fp16.
    const __half expect = __float2half(__half2float(a_host[i]) + __half2float(b_host[i]));
    wrong += __half_as_ushort(out[i]) != __half_as_ushort(expect);
  }
  const double ms = per_call_ms([&] { bundle.launch(problem, {{"A", a}, {"B", b}, {"C", c}}, stream); }, 50, stream);
  std::printf("  N=%lld: %lld elements differ from the rounded sum (%s), %.4f ms a call, %.0f GB/s (tuned: %.4f ms)\n",
              count, wrong, wrong == 0 ? "ok" : "WRONG", ms, 3.0 * count * sizeof(__half) / (ms * 1e-3) / 1e9,
              choice.tuned_ms);
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c)}) check(cudaFree(p), "cudaFree");
  return wrong == 0;
}

// CPU microseconds per call of `launch`, over `calls` calls (the stream synchronized every 256 so
// that the launch queue never fills and blocks the host).
template <typename F>
double host_us(F&& launch, int calls, cudaStream_t stream) {
  double total = 0;
  for (int done = 0; done < calls; done += 256) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 256; ++i) launch();
    total += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  return total / calls;
}

// The runtime's host overhead on a small add: Bundle::launch against cuLaunchKernel of the very
// function it launches, with the add kernels' arguments (A, B, C, long long N) built here. The
// driver is reached through cudart's entry-point query, so this binary does not link libcuda.
void overhead_case(ktune::runtime::Bundle& bundle, cudaStream_t stream) {
  using LaunchFn = decltype(&cuLaunchKernel);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, CUDA_VERSION, cudaEnableDefault, &found),
        "cudaGetDriverEntryPointByVersion");
  const auto raw_launch = reinterpret_cast<LaunchFn>(entry);
  long long n = 4096;
  __half *a = nullptr, *b = nullptr, *c = nullptr;
  for (__half** p : {&a, &b, &c}) check(cudaMalloc(p, n * sizeof(__half)), "cudaMalloc");
  const ktune::runtime::Problem problem{"add", {{"N", n}}, "fp16", {}};
  const std::map<std::string, void*> buffers = {{"A", a}, {"B", b}, {"C", c}};
  const ktune::runtime::Choice choice = bundle.launch(problem, buffers, stream);
  void* args[] = {&a, &b, &c, &n};
  auto raw = [&] {
    raw_launch(static_cast<CUfunction>(choice.function), choice.grid[0], choice.grid[1], choice.grid[2], choice.block[0],
               choice.block[1], choice.block[2], choice.shared_bytes, stream, args, nullptr);
  };
  auto through = [&] { bundle.launch(problem, buffers, stream); };
  double best_raw = 1e9, best_runtime = 1e9;
  for (int round = 0; round < 5; ++round) {  // interleaved rounds, the best of each
    best_raw = std::min(best_raw, host_us(raw, 20000, stream));
    best_runtime = std::min(best_runtime, host_us(through, 20000, stream));
  }
  std::printf("host time per launch (add N=%lld, best of 5 rounds of 20000): cuLaunchKernel %.2f us, Bundle::launch %.2f us, "
              "runtime overhead %.2f us\n", n, best_raw, best_runtime, best_runtime - best_raw);
  for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(c)}) check(cudaFree(p), "cudaFree");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 5) {
    std::fprintf(stderr, "usage: %s BUNDLE [M N K]\n", argv[0]);
    return 2;
  }
  const long long m = argc == 5 ? std::atoll(argv[2]) : 4096, n = argc == 5 ? std::atoll(argv[3]) : 4096,
                  k = argc == 5 ? std::atoll(argv[4]) : 4096;
  try {
    ktune::runtime::Bundle bundle(argv[1]);
    std::printf("%zu tuned shapes in %s\n", bundle.rows(), argv[1]);
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cublasHandle_t blas;
    check(cublasCreate(&blas), "cublasCreate");
    bool ok = gemm_case(bundle, blas, stream, m, n, k, "gemm (tuned shape)");
    ok &= gemm_case(bundle, blas, stream, m - 96, n + 64, k, "gemm (untuned shape nearby)");
    ok &= add_case(bundle, stream, 1LL << 26);
    overhead_case(bundle, stream);
    check(cublasDestroy(blas), "cublasDestroy");
    check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    std::printf("%s\n", ok ? "all results correct" : "SOME RESULTS WRONG");
    return ok ? 0 : 1;
  } catch (const ktune::runtime::Error& e) {
    std::fprintf(stderr, "ktune runtime: %s\n", e.what());
    return 2;
  }
}
