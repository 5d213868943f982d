#include "cuda/tensor_map.hpp"

#include "cuda/check.hpp"
#include "cuda/driver.hpp"

namespace ktune::cuda {

CUtensorMapDataType tensor_map_type(const std::string& dtype) {
  if (dtype == "fp16") return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if (dtype == "bf16") return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  if (dtype == "fp8") return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

CUtensorMap encode_matrix(const TensorMapSpec& spec, void* base, CUtensorMapDataType type, int64_t element_bytes,
                          int64_t rows, int64_t cols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols * element_bytes)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(spec.box[0]), static_cast<cuuint32_t>(spec.box[1])};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUtensorMapSwizzle swizzle = spec.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : spec.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : spec.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                          : CU_TENSOR_MAP_SWIZZLE_NONE;
  KTUNE_CU(driver().tensor_map_encode_tiled(&map, type, 2, base, dims, strides, box, element_strides,
                                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return map;
}

}  // namespace ktune::cuda
