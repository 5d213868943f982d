#include "util/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace ktune {

Progress::Progress(std::string label, size_t total, bool enabled)
    : label_(std::move(label)), total_(total), wanted_(enabled), enabled_(enabled && total > 0),
      tty_(isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::step(std::string_view note) {
  ++done_;
  if (enabled_) draw(note);
}

void Progress::add_total(size_t more) {
  total_ += more;
  enabled_ = wanted_ && total_ > 0 && !finished_;
}

void Progress::draw(std::string_view note) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ ? elapsed / done_ * (total_ - done_) : 0;
  if (tty_) {
    constexpr int width = 28;
    const int filled = static_cast<int>(width * done_ / total_);
    std::string bar(filled, '#');
    bar.resize(width, '.');
    std::string line = fmt::format("{:<10} [{}] {}/{} {:5.1f}s ETA {:4.1f}s {}", label_, bar, done_, total_,
                                   elapsed, eta, note.substr(0, 40));
    fmt::print(stderr, "\r{:<110}", line);
    std::fflush(stderr);
  } else if (done_ >= next_plain_report_ || done_ == total_) {
    fmt::print(stderr, "{}: {}/{} done, {:.1f}s elapsed, ETA {:.1f}s\n", label_, done_, total_, elapsed, eta);
    next_plain_report_ = done_ + std::max<size_t>(1, total_ / 10);
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (enabled_ && tty_) fmt::print(stderr, "\r{:<110}\r", "");
}

}  // namespace ktune
