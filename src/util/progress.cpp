#include "util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ktune {

Progress::Progress(std::string label, size_t total, bool enabled, std::chrono::milliseconds plain_interval)
    : label_(std::move(label)), total_(total), wanted_(enabled), enabled_(enabled && total > 0),
      tty_(isatty(STDERR_FILENO) != 0), plain_interval_(plain_interval), start_(std::chrono::steady_clock::now()),
      last_plain_(start_) {
  if (wanted_ && !tty_) heartbeat_ = std::jthread([this](std::stop_token stop) { heartbeat(stop); });
}

Progress::~Progress() { finish(); }

void Progress::step(std::string_view note) {
  std::lock_guard lock(mutex_);
  ++done_;
  if (enabled_) draw(note);
}

void Progress::add_total(size_t more) {
  std::lock_guard lock(mutex_);
  total_ += more;
  enabled_ = wanted_ && total_ > 0 && !finished_;
}

void Progress::draw(std::string_view note) {
  const auto now = std::chrono::steady_clock::now();
  if (!tty_) {
    if (now - last_plain_ >= plain_interval_) plain_line();
    return;
  }
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = done_ ? elapsed / done_ * (total_ - done_) : 0;
  constexpr int width = 28;
  const int filled = static_cast<int>(width * done_ / total_);
  std::string bar(filled, '#');
  bar.resize(width, '.');
  std::string line = fmt::format("{:<10} [{}] {}/{} {:5.1f}s ETA {:4.1f}s {}", label_, bar, done_, total_, elapsed,
                                 eta, note.substr(0, 40));
  fmt::print(stderr, "\r{:<110}", line);
  std::fflush(stderr);
}

void Progress::plain_line() {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (done_ > 0 && total_ > 0)
    fmt::print(stderr, "{}: {}/{} done, {:.0f} s elapsed, ETA {:.0f} s\n", label_, done_, total_, elapsed,
               elapsed / done_ * (total_ - done_));
  else
    fmt::print(stderr, "{}: {}/{} done, {:.0f} s elapsed\n", label_, done_, total_, elapsed);
  std::fflush(stderr);
  last_plain_ = now;
}

void Progress::heartbeat(std::stop_token stop) {
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    wake_.wait_until(lock, stop, last_plain_ + plain_interval_, [] { return false; });
    if (stop.stop_requested()) break;
    if (enabled_ && !finished_ && std::chrono::steady_clock::now() - last_plain_ >= plain_interval_) plain_line();
  }
}

void Progress::finish() {
  {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    if (enabled_ && tty_) fmt::print(stderr, "\r{:<110}\r", "");
  }
  heartbeat_ = {};  // stops and joins the heartbeat thread
}

}  // namespace ktune
