#include "tune/worker_client.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>
#include <cstring>

#include "util/error.hpp"
#include "util/stop_signals.hpp"

extern char** environ;

namespace ktune {
namespace {

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

WorkerClient::WorkerClient(std::vector<std::string> argv, std::vector<std::string> env)
    : argv_(std::move(argv)), env_(std::move(env)) {
  // A write to a worker that just died must be an error return, not a signal that kills ktune.
  signal(SIGPIPE, SIG_IGN);
}

WorkerClient::~WorkerClient() { stop(); }

void WorkerClient::start() {
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)
    throw Error(fmt::format("cannot create pipes for the worker: {}", strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (auto& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  // This process's environment, with the overrides in place of the variables they name.
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    const std::string_view var(*e);
    const bool overridden = std::any_of(env_.begin(), env_.end(), [&](const std::string& o) {
      const size_t eq = o.find('=');
      return var.size() > eq && var.substr(0, eq + 1) == std::string_view(o).substr(0, eq + 1);
    });
    if (!overridden) envp.push_back(*e);
  }
  for (auto& o : env_) envp.push_back(o.data());
  envp.push_back(nullptr);
  // The worker starts with no signal blocked, not with the mask of the thread that starts it.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  unblock_signals_in_child(attr);
  int rc = posix_spawn(&pid_, argv_[0].c_str(), &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (rc != 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    pid_ = -1;
    throw Error(fmt::format("cannot start the worker {}: {}", argv_[0], strerror(rc)));
  }
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  buffered_.clear();
}

std::string WorkerClient::reap(bool kill_first) {
  if (pid_ <= 0) return "not running";
  if (kill_first) kill(pid_, SIGKILL);
  close(to_worker_);
  close(from_worker_);
  to_worker_ = from_worker_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("exited with status {}", WEXITSTATUS(status));
  return "ended";
}

void WorkerClient::stop() {
  if (pid_ > 0) reap(true);
}

WorkerClient::Reply WorkerClient::call(const nlohmann::json& request, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) start();
  Reply reply;
  if (!write_all(to_worker_, request.dump() + "\n")) {
    reply.status = Status::died;
    reply.detail = reap(false);
    return reply;
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    size_t newline = buffered_.find('\n');
    if (newline != std::string::npos) {
      std::string line = buffered_.substr(0, newline);
      buffered_.erase(0, newline + 1);
      reply.body = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (reply.body.is_discarded()) {
        reply.status = Status::died;
        reply.detail = "sent an unreadable reply; " + reap(true);
      }
      return reply;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      reply.status = Status::timed_out;
      reply.detail = fmt::format("no answer within {:.1f} s; {}", timeout.count() / 1000.0, reap(true));
      return reply;
    }
    pollfd p{from_worker_, POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    char chunk[65536];
    ssize_t got = read(from_worker_, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      reply.status = Status::died;
      reply.detail = reap(false);
      return reply;
    }
    buffered_.append(chunk, static_cast<size_t>(got));
  }
}

}  // namespace ktune
