// Starting a program that outlives its caller: the runtime's tuning on a miss.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ktune {

// Starts argv[0] (found on PATH) with argv in a session of its own, stdin from /dev/null and
// stdout and stderr appended to `log`, and returns at once: the caller never waits for it (a
// detached thread reaps it when it ends, so no zombie is left). posix_spawnp rather than fork,
// because the caller may be a large multithreaded CUDA application, whose address space fork
// would copy and whose threads it would leave in an unknown state. False, with errno's reason
// in `why`, where it cannot be started.
bool spawn_detached(const std::vector<std::string>& argv, const std::filesystem::path& log, std::string* why = nullptr);

}  // namespace ktune
