// A kernel's parameter list checked against the arguments its family passes, by NVRTC itself: a
// few lines appended to the kernel's translation unit assert the parameter count and each
// parameter's type, so that a kernel written for other arguments fails to compile with a message
// naming the parameter, offline and before anything runs, instead of crashing on the GPU or
// computing garbage that only looks like a wrong answer. The compiler resolves typedefs
// (nv_bfloat16, int64_t), so the check takes the types as the kernel author spelled them.
//
// What counts as a match: the same type; for pointers the same element type, const or not, but
// never a pointer to const where the family passes a buffer it expects written; for scalars any
// type of the same size and kind (integer or floating point), since that is what the launch
// copies.
#pragma once

#include <string>
#include <vector>

namespace ktune {

struct KernelParam {
  std::string type;  // "const __half*", "long long", "CUtensorMap"
  std::string what;  // what the family passes there: "A", "N", "scale_a"
  // A kernel may end its list before this parameter (softmax's split workspace: kernels that do
  // not need it leave it out, and the launch ignores arguments past a kernel's last parameter).
  bool may_end_before = false;
};

// The source text to append after a kernel whose instantiation is `name_expression`; empty when
// `params` is.
std::string parameter_check(const std::string& name_expression, const std::vector<KernelParam>& params);

// "(const __half* A, const __half* B, __half* C, long long N)", for messages.
std::string parameter_list(const std::vector<KernelParam>& params);

}  // namespace ktune
