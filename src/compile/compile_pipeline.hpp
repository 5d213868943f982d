// Compiling while the GPU works: background threads compile requests in their order and hand
// each result over as it finishes, so a sweep times one candidate while NVRTC compiles the next
// ones instead of waiting for every compile first.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "compile/compiler.hpp"

namespace ktune {

class CompilePipeline {
 public:
  // Starts `threads` workers (0: all cores) that claim the requests in order.
  CompilePipeline(Compiler& compiler, std::vector<CompileRequest> requests, int threads);
  ~CompilePipeline();  // cancels and waits for the compiles in flight
  CompilePipeline(const CompilePipeline&) = delete;
  CompilePipeline& operator=(const CompilePipeline&) = delete;

  struct Done {
    size_t index;  // into the requests
    CompileInfo info;
  };
  // The next finished compile, in the order they finish; blocks until one is ready. nullopt once
  // every request is handed over, or after cancel(). Rethrows what a compile threw (a broken
  // environment, never a kernel that fails to compile: that is a CompileInfo).
  std::optional<Done> next();
  // No compile starts after this; next() answers nullopt.
  void cancel();
  size_t size() const { return requests_.size(); }
  // Seconds from the start to the last compile finished so far.
  double busy_seconds();

 private:
  void work();

  Compiler& compiler_;
  std::vector<CompileRequest> requests_;
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t claimed_ = 0, delivered_ = 0;
  bool cancelled_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_done_ = start_;
  std::deque<Done> done_;
  std::exception_ptr failure_;
  std::vector<std::jthread> workers_;  // last: joined before the state above is destroyed
};

}  // namespace ktune
