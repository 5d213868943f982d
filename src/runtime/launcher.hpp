// The runtime library's engine: a bundle opened once, the nearest tuned row this GPU can run for
// a problem (the rule of `ktune lookup`, store/dispatch_table.hpp, passing over rows whose
// configuration cannot run the shape), its kernel loaded from the bundle's cubin or compiled by
// NVRTC on first use (cached on disk), its workspaces, and launches on the caller's stream with
// the caller's buffers. Thread-safe; what a problem needs is prepared once and kept.
//
// Tuning on a miss: given a ktune binary, a problem answered by a nearer row than its own starts
// `ktune bench` on that one problem in the background, detached, into the bundle's own cache
// (DIR/cache/best_configs.json; its log DIR/cache/tune-on-miss.log). The application goes on
// with the nearest row; every later open of the bundle reads that cache beside bundle.json and
// answers the shape exactly (its kernel compiled by NVRTC on first use).
#pragma once

#include <cuda.h>

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "core/record.hpp"
#include "families/family.hpp"
#include "runtime/bundle.hpp"

namespace ktune {

// What answers a problem: the row, how far its shape is, and how its kernel was obtained.
struct RuntimeChoice {
  const BundleRow* row = nullptr;
  double distance = 0;          // 0: tuned for exactly this shape (store/dispatch_table.hpp's units)
  std::string kernel_name;      // for this shape (a nearest row's kernel may be instantiated anew)
  Launch launch;                // for this shape
  std::string kernel_from;      // "bundle cubin" or "nvrtc"
  bool tuning_started = false;  // a miss whose exact shape is now being tuned in the background
  std::vector<std::string> passed_over;  // nearer rows that cannot run this shape, each with why
  CUfunction function = nullptr;
};

class Launcher {
 public:
  // `cache_dir`: where kernels compiled on first use are kept ("" : default_cache_dir()/runtime).
  // `tune_on_miss`: the ktune binary that tunes missed shapes in the background ("": none).
  explicit Launcher(std::filesystem::path bundle_dir, std::filesystem::path cache_dir = {},
                    std::string tune_on_miss = {});
  ~Launcher();

  // The problem completed with its family's default options and checked (ConfigError otherwise).
  Problem complete(Problem p) const;
  // The choice for `p` on the current device, its kernel loaded (ktune::Error when no row of the
  // family and dtype can run it).
  RuntimeChoice choose(const Problem& p);
  std::vector<LaunchOperand> operands(const Problem& p) const;
  // Launches `p`'s kernel with `buffers` (every operand that is not a workspace) on `stream`. The
  // choice returned lives as long as the launcher. A call for the problem and buffers of the
  // call before costs a comparison and the launch: the arguments are built once.
  const RuntimeChoice& launch(const Problem& p, const std::map<std::string, void*>& buffers, CUstream stream);

  const std::vector<BundleRow>& rows() const { return rows_; }
  const DeviceInfo& device() const { return device_; }

 private:
  struct Prepared;
  Prepared& prepared(const Problem& p);  // under mutex_
  void* workspace(const LaunchOperand& op, CUstream stream);  // under mutex_
  const SweepConfig& config_of(const BundleRow& row, const KernelFamily& family);  // under mutex_
  bool tune_in_background(const Problem& p);  // under mutex_; false when it could not start

  std::filesystem::path dir_, cache_dir_;
  std::string tune_on_miss_;
  std::vector<BundleRow> rows_;
  std::vector<DispatchRow> table_;  // rows_' dispatch rows, for the nearest-shape rule
  DeviceInfo device_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Prepared>> prepared_;  // by problem
  Prepared* last_ = nullptr;  // the last launch's, for `last_problem_`
  Problem last_problem_;
  std::map<std::string, std::pair<void*, int64_t>> workspaces_;  // by stream and operand: pointer, bytes
  std::map<std::string, SweepConfig> configs_;  // by file, or by family and name for the cache's rows
};

}  // namespace ktune
