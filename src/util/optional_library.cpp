#include "util/optional_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

namespace ktune {

OptionalLibrary::OptionalLibrary(std::string what, const std::string& path, const char* env_var,
                                 const std::string& install_hint)
    : what_(std::move(what)), path_(path) {
  // Never dlclose'd: the handle serves the whole process, and these libraries load (and keep)
  // sub-libraries or threads of their own behind it.
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_) return;
  const char* err = dlerror();
  const bool overridden = std::getenv(env_var) != nullptr;
  error_ = not_available(fmt::format("{} ({})", err ? err : path,
                                     overridden ? fmt::format("set by {}", env_var) : install_hint));
}

std::string OptionalLibrary::not_available(const std::string& reason) const {
  return what_ + " is not available: " + reason;
}

void* OptionalLibrary::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

void OptionalLibrary::fail_missing(const char* name, std::string_view hint) {
  if (error_.empty()) error_ = not_available(fmt::format("{} has no {} ({})", path_, name, hint));
}

}  // namespace ktune
