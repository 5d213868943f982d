// Shared by the host tests of the libraries ktune opens at run time (cuDNN, NVML, CUPTI): an
// environment variable set for one scope, whether a library opens here, and the message of the
// ktune::Error a call throws.
#pragma once

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <stdlib.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "util/error.hpp"

// gmock's HasSubstr without gmock (the GPU machine builds only gtest).
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (text) << "\" lacks \"" << (part) << "\""

namespace ktune::test {

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      setenv(name, value->c_str(), 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline bool loadable(const char* library) { return dlopen(library, RTLD_LAZY | RTLD_LOCAL) != nullptr; }

// The message of the ktune::Error `f` throws; fails the test when it throws nothing or another type.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "threw a non-ktune exception: " << e.what();
    return {};
  }
  ADD_FAILURE() << "did not throw";
  return {};
}

}  // namespace ktune::test
