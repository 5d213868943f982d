// What a family's candidates are timed against, as plain data: the workload (families/) says
// which baselines it has, the copy roof (gpu/copy_roof.hpp) is one of them, records and tables
// name them.
#pragma once

#include <string>

namespace ktune {

// A call a family's candidates are timed against: a library op users would call, or the copy roof
// (gpu/copy_roof.hpp).
struct BaselineInfo {
  std::string provider;       // "cublas", "cudnn", "copy": a record's source
  std::string name;           // what exactly it calls: "cublasGemmEx (fp16, fp32 accumulate)"
  bool checks_output = true;  // false: it computes nothing of the problem (the copy roof)
  // Non-empty: the library has no call for this problem, and why (cuBLASLt's fp8 matmuls refuse
  // leading dimensions that are not 16-byte multiples). The problem is still tuned and verified
  // against the reference; its records carry no ratio, and the baseline record says why.
  std::string unavailable = {};
};

}  // namespace ktune
