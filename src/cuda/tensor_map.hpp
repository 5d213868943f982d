// A matrix in global memory as a 2-D TMA descriptor (cuTensorMapEncodeTiled, reached through the
// driver loaded at run time): how a family hands an operand to a Hopper kernel whose sweep config
// names it in "tensor_maps".
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "core/record.hpp"

namespace ktune::cuda {

// The element type a tensor map of a problem's dtype names: fp16, bf16, fp32, or fp8 copied as
// plain bytes (TMA needs only the element size).
CUtensorMapDataType tensor_map_type(const std::string& dtype);

// `rows` x `cols` elements of `element_bytes` bytes at `base`, each row's `cols` elements
// contiguous and the rows packed one after another, in the box and swizzle `spec` gives.
CUtensorMap encode_matrix(const TensorMapSpec& spec, void* base, CUtensorMapDataType type, int64_t element_bytes,
                          int64_t rows, int64_t cols);

}  // namespace ktune::cuda
