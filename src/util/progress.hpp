// Progress for long phases (compiling, timing): on a terminal a bar with a count and an ETA,
// redrawn in place on stderr; otherwise (CI logs, pipes) a plain line with the count and the ETA
// at most every kPlainInterval, and at least that often while the phase runs, even when no item
// finishes in between, so a log never goes quiet for long. stdout is left for results.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

namespace ktune {

class Progress {
 public:
  // How often a plain (not terminal) line is written while the phase runs.
  static constexpr std::chrono::seconds kPlainInterval{20};

  Progress(std::string label, size_t total, bool enabled = true,
           std::chrono::milliseconds plain_interval = kPlainInterval);
  ~Progress();
  void step(std::string_view note = {});  // one item done
  void add_total(size_t more);            // the work grew (a search's next batch)
  void finish();                          // idempotent

 private:
  void draw(std::string_view note);  // with mutex_ held
  void plain_line();                 // with mutex_ held
  void heartbeat(std::stop_token stop);

  std::string label_;
  size_t total_, done_ = 0;
  bool wanted_, enabled_, tty_, finished_ = false;
  std::chrono::milliseconds plain_interval_;
  std::chrono::steady_clock::time_point start_, last_plain_;
  std::mutex mutex_;
  std::condition_variable_any wake_;
  std::jthread heartbeat_;  // plain output only: the line that comes when no item does
};

}  // namespace ktune
