// File helpers that the cache and result writers lean on: crash-safe whole-file writes, an
// inter-process lock, reading with useful errors, the default cache folder, and a small hash.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace ktune {

// Writes `content` to a temporary file next to `path` (<name>.<pid>-<n>.tmp), fsyncs it, renames
// it over `path` and fsyncs the folder, so readers see the old file or the new one, never half of
// one, even after kill -9 or a power cut. Creates missing parent folders. Throws ktune::Error
// naming the path and the system's reason.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

// The whole file. Throws ktune::Error naming the path and the system's reason.
std::string read_file(const std::filesystem::path& path);

// An exclusive advisory lock (flock) on "<path>.lock", held for the object's lifetime; the
// constructor blocks until it is granted and creates missing parent folders. Locks taken through
// separate FileLock objects exclude each other across threads and processes alike. The lock file
// stays behind on purpose: removing it would let two processes lock two different files.
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path);
  ~FileLock();
  // move-only
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;

  const std::filesystem::path& lock_path() const { return lock_path_; }

 private:
  std::filesystem::path lock_path_;
  int fd_ = -1;
};

// $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune (when absolute, as the XDG spec asks), else
// ~/.cache/ktune ($HOME, or the password database). Throws ktune::Error when none is known.
std::filesystem::path default_cache_dir();

// 64-bit FNV-1a: content hashes of kernel sources and cache keys. Fast and stable across
// platforms and versions; not collision-resistant against someone trying.
uint64_t fnv1a64(std::string_view data, uint64_t seed = 14695981039346656037ull);

// 16 lowercase hex digits, zero-padded.
std::string hex64(uint64_t value);

}  // namespace ktune
