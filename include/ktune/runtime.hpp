// ktune's runtime library: launch the kernels ktune tuned, inside an application.
//
//   ktune gemm --m 4096                      # tune (any command that tunes fills the cache)
//   ktune export --bundle tuned/             # the table, its configs and kernels, and cubins
//
//   #include <ktune/runtime.hpp>             # find_package(ktune) + ktune::runtime
//   ktune::runtime::Bundle bundle("tuned/");
//   ktune::runtime::Problem gemm{"gemm", {{"M", 4096}, {"N", 4096}, {"K", 4096}}, "fp16", {{"layout", "rr"}}};
//   ktune::runtime::Choice c = bundle.launch(gemm, {{"A", a}, {"B", b}, {"C", c}}, stream);
//
// A problem is answered by the row tuned for exactly its shape on this GPU, else by the nearest
// tuned shape (the rule of `ktune lookup`: the sum over dimensions of |log2(asked / tuned)|) whose
// configuration can run it, this GPU's rows before other GPUs'. The kernel comes from the
// bundle's cubin when the row was tuned for this architecture and shape, else NVRTC compiles the
// bundle's source for this shape and GPU on first use and keeps it on disk. Workspaces (GEMM's
// split-K partials, softmax's counters) belong to the bundle, one set per stream. Every method is
// thread-safe; errors are ktune::runtime::Error with a message that says what to do.
//
// With KTUNE_TUNE_ON_MISS set (a ktune binary, or 1 for the one on PATH) when a bundle is opened,
// a problem answered from a nearer shape than its own is launched at once from that row, and a
// detached `ktune bench` tunes its exact shape into the bundle's cache (DIR/cache/); bundles
// opened later answer it exactly.
// docs/runtime.md has the operands of each family and the bundle's layout.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

struct CUstream_st;  // cudaStream_t and CUstream are both CUstream_st*

namespace ktune::runtime {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Problem {
  std::string family;                          // "gemm", "add", "softmax", or a declared family
  std::map<std::string, int64_t> dims;         // every dimension: {"M", 4096}, {"N", 4096}, {"K", 4096}
  std::string dtype;                           // "fp16", "bf16", "fp8", "fp32", ...
  std::map<std::string, std::string> options;  // left out: the family's defaults ({"layout", "rr"})
};

// What answers a problem, for logs and for deciding to tune: how far the tuned shape is.
struct Choice {
  std::map<std::string, int64_t> tuned_dims;  // the row's shape
  double distance = 0;                        // 0: tuned for exactly this shape
  std::string gpu;                            // the GPU the row was tuned on
  std::string config, kernel_name;            // the sweep config and the kernel for this shape
  std::map<std::string, int64_t> params;      // the configuration
  unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared_bytes = 0;
  double tuned_ms = 0;                        // the row's time for its own shape
  std::string kernel_from;                    // "bundle cubin" or "nvrtc"
  std::vector<std::string> passed_over;       // nearer rows that cannot run this shape, and why
  void* function = nullptr;                   // the CUfunction launched (for profilers and comparisons)
  bool tuning_started = false;                // a miss now tuned in the background (KTUNE_TUNE_ON_MISS)
  bool exact() const { return distance == 0; }
};

struct Operand {
  std::string name, help;  // "A", "M x K fp16, row-major"
  int64_t bytes = 0;       // what it holds
  bool workspace = false;  // the bundle's own: not passed by the caller
};

class Bundle {
 public:
  // Opens a bundle written by `ktune export --bundle DIR` on the calling thread's current CUDA
  // device. Kernels compiled on first use go to `cache_dir` (default: $KTUNE_CACHE_DIR/runtime,
  // else ~/.cache/ktune/runtime).
  explicit Bundle(const std::string& dir, const std::string& cache_dir = "");
  ~Bundle();
  Bundle(Bundle&&) noexcept;
  Bundle& operator=(Bundle&&) noexcept;

  // What launch() runs for `problem`, its kernel loaded, without running it.
  Choice choose(const Problem& problem);
  // The operands `problem`'s kernels take: the caller's buffers and the bundle's workspaces.
  std::vector<Operand> operands(const Problem& problem) const;
  // Launches on `stream` (null: the legacy default stream) with the caller's device buffers by
  // operand name; returns at once, as a kernel launch does. The choice lives as long as the
  // bundle. Calling again with the same problem and buffers reuses everything prepared.
  const Choice& launch(const Problem& problem, const std::map<std::string, void*>& buffers,
                       CUstream_st* stream = nullptr);
  size_t rows() const;  // tuned shapes in the bundle

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ktune::runtime
