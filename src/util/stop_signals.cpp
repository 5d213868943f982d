// The stop signals taken by one thread that waits for them (util/stop_signals.hpp).
#include "util/stop_signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <thread>

namespace ktune {
namespace {

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

[[noreturn]] void stop_by(int signal) {
  std::fflush(stdout);
  std::fflush(stderr);
  // The default action for this signal, whatever handler a library put there, then the signal
  // itself, unblocked in this thread alone: the process ends as killed by it.
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  sigaction(signal, &default_action, nullptr);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, signal);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(signal);
  // Only if a handler was installed again between the two calls above.
  _exit(128 + signal);
}

}  // namespace

void take_stop_signals() {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int signal = 0;
    while (sigwait(&set, &signal) != 0) {
    }
    stop_by(signal);
  }).detach();
}

void unblock_signals_in_child(posix_spawnattr_t& attr, short flags) {
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, static_cast<short>(flags | POSIX_SPAWN_SETSIGMASK));
}

}  // namespace ktune
