// The parent's side of the worker process: start it, send a request, wait for the reply with a
// deadline. A worker that dies or misses the deadline (a hung kernel) is reaped (killed first if
// needed) and reported, never waited on forever.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ktune {

class WorkerClient {
 public:
  // `argv` is the worker's command line, argv[0] the executable. `env` ("NAME=VALUE") replaces or
  // adds to this process's environment for the worker (CUDA_VISIBLE_DEVICES picks its GPU).
  explicit WorkerClient(std::vector<std::string> argv, std::vector<std::string> env = {});
  ~WorkerClient();
  // move-only
  WorkerClient(const WorkerClient&) = delete;
  WorkerClient& operator=(const WorkerClient&) = delete;

  enum class Status { ok, died, timed_out };
  struct Reply {
    Status status = Status::ok;
    nlohmann::json body;  // when ok
    std::string detail;   // when not: "killed by signal 11", "exited with status 3", ...
  };

  // Starts the worker if it is not running, sends one request and waits up to `timeout`.
  Reply call(const nlohmann::json& request, std::chrono::milliseconds timeout);
  bool running() const { return pid_ > 0; }
  void stop();  // kills and reaps the worker

 private:
  void start();
  std::string reap(bool kill_first);

  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string buffered_;
};

}  // namespace ktune
