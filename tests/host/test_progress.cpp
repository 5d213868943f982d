// Progress without a terminal (CI logs, ctest): a line with the count and the ETA at most and at
// least every interval, also while no item finishes, and nothing once the phase is over.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "util/progress.hpp"

namespace ktune {
namespace {

// Captures what is written to stderr (a pipe: not a terminal) while `body` runs.
template <typename Body>
std::string captured_stderr(Body body) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(fds[1], STDERR_FILENO);
  close(fds[1]);
  body();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  return out;
}

size_t lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(Progress, WithoutATerminalALineComesEveryIntervalEvenWhenNoItemFinishes) {
  using namespace std::chrono_literals;
  const std::string out = captured_stderr([] {
    Progress p("compiling", 10, true, 50ms);
    p.step();
    std::this_thread::sleep_for(260ms);  // one slow item: the heartbeat speaks for it
    p.finish();
    std::this_thread::sleep_for(120ms);  // after finish: silence
  });
  EXPECT_GE(lines(out), 3u) << out;
  EXPECT_LE(lines(out), 7u) << out;
  EXPECT_NE(out.find("compiling: 1/10 done"), std::string::npos) << out;
  EXPECT_NE(out.find("ETA"), std::string::npos) << out;
}

TEST(Progress, ManyQuickItemsWriteNoMoreThanOneLineAnInterval) {
  using namespace std::chrono_literals;
  const std::string out = captured_stderr([] {
    Progress p("timing", 100000, true, 10s);
    for (int i = 0; i < 100000; ++i) p.step();
  });
  EXPECT_EQ(lines(out), 0u) << out;
}

TEST(Progress, DisabledWritesNothing) {
  using namespace std::chrono_literals;
  const std::string out = captured_stderr([] {
    Progress p("x", 5, false, 10ms);
    std::this_thread::sleep_for(60ms);
    p.step();
  });
  EXPECT_TRUE(out.empty()) << out;
}

}  // namespace
}  // namespace ktune
