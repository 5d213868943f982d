// A library ktune runs without where it is missing (cuDNN, NVML): opened with dlopen on first use,
// never linked and never closed, its functions looked up by name, and what went wrong said in one
// line that starts "<what> is not available: ".
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>

namespace ktune {

class OptionalLibrary {
 public:
  // Opens `path` (RTLD_NOW | RTLD_LOCAL: its symbols stay out of the global namespace). When that
  // fails, error() is "<what> is not available: <dlerror> (<why>)", where <why> is "set by
  // <env_var>" if that variable chose the path, else `install_hint`.
  OptionalLibrary(std::string what, const std::string& path, const char* env_var, const std::string& install_hint);

  bool usable() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // fn = the function `name`. When it is missing (and nothing went wrong before), error() becomes
  // "<what> is not available: <path> has no <name> (<missing_hint>)".
  template <typename Fn>
  void require(const char* name, Fn& fn, std::string_view missing_hint) {
    fn = reinterpret_cast<Fn>(symbol(name));
    if (!fn) fail_missing(name, missing_hint);
  }
  // The function `name`, or null where this version of the library lacks it.
  template <typename Fn>
  Fn optional(const char* name) const {
    return reinterpret_cast<Fn>(symbol(name));
  }
  // "<what> is not available: <reason>", for a check of the caller's own.
  std::string not_available(const std::string& reason) const;

 private:
  void* symbol(const char* name) const;
  void fail_missing(const char* name, std::string_view hint);

  std::string what_, path_, error_;
  void* handle_ = nullptr;
};

// One Loaded per library name for the life of the process, made by load(name) on first use.
// Keyed by name rather than loaded once so that a test can point the library's environment
// variable somewhere else and see that library's answer.
template <typename Loaded, typename Load>
const Loaded& load_once_per_name(const std::string& name, Load load) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Loaded>> by_name;
  std::lock_guard lock(mutex);
  auto& slot = by_name[name];
  if (!slot) slot = std::make_unique<Loaded>(load(name));
  return *slot;
}

}  // namespace ktune
