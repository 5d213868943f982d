// How ktune stops when it is told to (SIGINT, SIGTERM, SIGHUP): the way the shell, timeout(1) and
// a batch scheduler expect, whatever library code is running at that moment.
#pragma once

#include <spawn.h>

namespace ktune {

// Blocks the stop signals in the calling thread, so in every thread it starts afterwards, and
// starts one thread that waits for them. When one comes, that thread flushes stdout and stderr
// (under their locks: a line another thread is printing is finished first) and ends the process by
// the same signal, with its default action: the exit status says "killed by SIGTERM" as before.
// Why: early in its first compile the process catches SIGTERM with a handler ktune does not
// install (most likely NVRTC's: libnvrtc imports sigaction), and a SIGTERM then ended the run with
// status 4 or by SIGSEGV (results/h200/stop-signals-s47/host-stops.txt). Call it first thing in
// main, before any thread starts.
void take_stop_signals();

// Lets a child start with no signal blocked (the stop signals above included), in place of the
// mask it would inherit: for posix_spawn's attributes; sets POSIX_SPAWN_SETSIGMASK among `flags`.
void unblock_signals_in_child(posix_spawnattr_t& attr, short flags = 0);

}  // namespace ktune
