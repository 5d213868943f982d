// Progress for long phases (compiling, timing): on a terminal a bar with a count and an ETA,
// redrawn in place on stderr; otherwise (CI logs, pipes) a plain line every ~10% so logs stay
// short. stdout is left for results.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace ktune {

class Progress {
 public:
  Progress(std::string label, size_t total, bool enabled = true);
  ~Progress();
  void step(std::string_view note = {});  // one item done
  void add_total(size_t more);            // the work grew (a search's next batch)
  void finish();                          // idempotent

 private:
  void draw(std::string_view note);

  std::string label_;
  size_t total_, done_ = 0;
  bool wanted_, enabled_, tty_, finished_ = false;
  size_t next_plain_report_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace ktune
