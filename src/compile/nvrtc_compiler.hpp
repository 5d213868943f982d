// The real compiler: NVRTC turns one kernel instantiation into a cubin for one architecture, with
// ptxas resource figures, and keeps the result in an on-disk cache so that a sweep run twice (or
// an offline compile check followed by a sweep) compiles each candidate once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "compile/compiler.hpp"

namespace ktune {

class NvrtcCompiler : public Compiler {
 public:
  // Cubins go under cache_dir/"cubins" (created here; throws ktune::Error if that fails).
  // An empty cache_dir means no disk cache: figures and logs only, cubin_path stays empty.
  explicit NvrtcCompiler(std::filesystem::path cache_dir);

  // Thread-safe: each call owns its NVRTC program, and cache files are written atomically.
  CompileInfo compile(const CompileRequest& request) override;

  // "13.0": the NVRTC library actually loaded, part of every cache key.
  static std::string nvrtc_version();

  // Every option given to NVRTC for `request`, in order: the fixed ones, then extra_options.
  static std::vector<std::string> nvrtc_options(const CompileRequest& request);

 private:
  std::filesystem::path cubin_dir_;  // empty: no disk cache
};

}  // namespace ktune
