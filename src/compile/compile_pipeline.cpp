#include "compile/compile_pipeline.hpp"

#include <algorithm>

namespace ktune {

CompilePipeline::CompilePipeline(Compiler& compiler, std::vector<CompileRequest> requests, int threads)
    : compiler_(compiler), requests_(std::move(requests)) {
  size_t n = threads > 0 ? static_cast<size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
  n = std::min(n, requests_.size());
  for (size_t t = 0; t < n; ++t) workers_.emplace_back([this] { work(); });
}

CompilePipeline::~CompilePipeline() {
  cancel();
  workers_.clear();  // joins
}

void CompilePipeline::work() {
  for (;;) {
    size_t i;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_ || failure_ || claimed_ == requests_.size()) return;
      i = claimed_++;
    }
    try {
      CompileInfo info = compiler_.compile(requests_[i]);
      std::lock_guard lock(mutex_);
      done_.push_back({i, std::move(info)});
      last_done_ = std::chrono::steady_clock::now();
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = std::current_exception();
    }
    ready_.notify_all();
  }
}

std::optional<CompilePipeline::Done> CompilePipeline::next() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return cancelled_ || failure_ || !done_.empty() || delivered_ == requests_.size(); });
  if (failure_) std::rethrow_exception(failure_);
  if (cancelled_ || done_.empty()) return std::nullopt;
  Done d = std::move(done_.front());
  done_.pop_front();
  ++delivered_;
  return d;
}

double CompilePipeline::busy_seconds() {
  std::lock_guard lock(mutex_);
  return std::chrono::duration<double>(last_done_ - start_).count();
}

void CompilePipeline::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  ready_.notify_all();
}

}  // namespace ktune
