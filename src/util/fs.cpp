// File helpers: atomic writes, flock-based locking, reading, the cache folder, FNV-1a.
#include "util/fs.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace ktune {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(std::string_view what, const fs::path& path, int err) {
  throw Error(fmt::format("{} {}: {}", what, path.string(), std::strerror(err)));
}

void create_parent(const fs::path& path) {
  const fs::path parent = path.parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw Error(fmt::format("cannot create folder {}: {}", parent.string(), ec.message()));
}

// Unique within the process (counter) and across processes (pid) writing the same folder.
fs::path temp_path_for(const fs::path& path) {
  static std::atomic<uint64_t> counter{0};
  fs::path tmp = path;
  tmp += fmt::format(".{}-{}.tmp", ::getpid(), counter.fetch_add(1));
  return tmp;
}

void write_all(int fd, std::string_view content, const fs::path& shown) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", shown, errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

// Makes the rename itself durable. Some filesystems cannot fsync a folder (EINVAL); the data is
// already safe there, so that alone is not an error.
void sync_folder(const fs::path& folder) {
  const fs::path dir = folder.empty() ? fs::path(".") : folder;
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open folder", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0 && err != EINVAL) fail("cannot sync folder", dir, err);
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view content) {
  if (!path.has_filename()) throw Error("cannot write " + path.string() + ": not a file name");
  create_parent(path);
  const fs::path tmp = temp_path_for(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail("cannot create", tmp, errno);

  try {
    // A replaced file keeps its permissions (someone may have made a shared cache group-writable).
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0) ::fchmod(fd, old.st_mode & 07777);
    write_all(fd, content, path);
    if (::fsync(fd) != 0) fail("cannot sync", path, errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot write", path, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    fail("cannot replace", path, err);
  }
  sync_folder(path.parent_path());
}

std::string read_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot read", path, errno);
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  std::vector<char> buf(1 << 16);
  while (true) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      fail("cannot read", path, err);
    }
    out.append(buf.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

FileLock::FileLock(const fs::path& path) : lock_path_(path) {
  lock_path_ += ".lock";
  create_parent(lock_path_);
  fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  // flock works on a read-only descriptor too: a lock file someone else created and we may not
  // write still serializes us with them.
  if (fd_ < 0 && errno == EACCES) fd_ = ::open(lock_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot open lock file", lock_path_, errno);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    fail("cannot lock", lock_path_, err);
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

FileLock::FileLock(FileLock&& other) noexcept
    : lock_path_(std::move(other.lock_path_)), fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    lock_path_ = std::move(other.lock_path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

fs::path default_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (auto dir = env("KTUNE_CACHE_DIR"); !dir.empty()) return dir;
  if (auto xdg = env("XDG_CACHE_HOME"); !xdg.empty() && fs::path(xdg).is_absolute())
    return fs::path(xdg) / "ktune";
  std::string home = env("HOME");
  if (home.empty()) {
    std::vector<char> buf(16384);
    struct passwd pw {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && pw.pw_dir)
      home = pw.pw_dir;
  }
  if (home.empty())
    throw Error("no cache folder: set KTUNE_CACHE_DIR (neither XDG_CACHE_HOME nor HOME is set)");
  return fs::path(home) / ".cache" / "ktune";
}

uint64_t fnv1a64(std::string_view data, uint64_t seed) {
  uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(uint64_t value) { return fmt::format("{:016x}", value); }

}  // namespace ktune
