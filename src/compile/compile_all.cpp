// Thread pool for compile_all: each worker takes the next unclaimed request until none is left.
#include "compile/compile_all.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

namespace ktune {

std::vector<CompileInfo> compile_all(Compiler& compiler,
                                     const std::vector<CompileRequest>& requests, int threads,
                                     const std::function<void(size_t, size_t)>& progress) {
  const size_t total = requests.size();
  std::vector<CompileInfo> results(total);
  size_t workers = threads > 0 ? static_cast<size_t>(threads)
                               : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, total);

  std::atomic<size_t> next{0};
  std::mutex mutex;  // guards done, failure and the progress callback
  size_t done = 0;
  std::exception_ptr failure;

  auto work = [&] {
    for (size_t i = next++; i < total; i = next++) {
      try {
        results[i] = compiler.compile(requests[i]);
        std::lock_guard lock(mutex);
        ++done;
        if (progress) progress(done, total);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = total;  // the others finish what they hold and stop
        return;
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (size_t t = 0; t < workers; ++t) pool.emplace_back(work);
  }  // joined here
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace ktune
