// The compile step's interface: one request (source, headers, kernel instantiation, target arch)
// in, one CompileInfo out. It is an interface so that tests and the sweep can inject a fake;
// NvrtcCompiler is the real one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/record.hpp"

namespace ktune {

struct CompileRequest {
  std::string source_name;  // "kernels/gemm_mma.cu": the program name NVRTC puts in messages
  std::string source_text;
  std::vector<std::pair<std::string, std::string>> headers;  // include name -> text
  std::string name_expression;  // "ktune_gemm_mma<__half, 1, 1, 128, 256, 32, 8, 3, 8, 1>"
  std::string arch;             // a real architecture, since a cubin is wanted: "sm_80", "sm_90a"
  std::vector<std::string> extra_options;  // appended after the fixed options
};

class Compiler {
 public:
  virtual ~Compiler() = default;
  // A kernel that does not compile is data (ok=false, the log says why), never an exception.
  // Exceptions are kept for a broken environment, e.g. a cache directory that cannot be written.
  virtual CompileInfo compile(const CompileRequest& request) = 0;
};

}  // namespace ktune
