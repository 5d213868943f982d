// Block-scaled low-precision matrices, quantized and dequantized on the host: what a user needs
// to feed their own weights and activations to the block-scaled GEMMs of issue 41, and what ktune
// uses to quantize the inputs it generates. Every format quantizes a row-major rows x cols matrix
// with its blocks along the rows (the contiguous dimension: K of a K-major operand, so a weight
// N x K is quantized as N rows of K); docs/formats.md gives each layout bit by bit.
//
//   nvfp4        e2m1 values in groups of 16 consecutive elements of a row, each group with an
//                e4m3 scale, and one fp32 scale for the whole tensor:
//                  x ~ e2m1(q) * e4m3(group scale) * tensor scale.
//                Values: cdiv(cols, 2) bytes a row, element 2i in bits 0-3 of byte i and 2i+1 in
//                bits 4-7 (a row of odd length ends in a zero nibble). Scales: rows x cdiv(cols, 16)
//                e4m3 bytes, row-major.
//   fp8-1x128    e4m3 values, one byte each; an fp32 scale per 128 consecutive elements of a row
//                (DeepSeek-V3's activation blocks): rows x cdiv(cols, 128) floats, row-major.
//   fp8-128x128  e4m3 values; an fp32 scale per 128 x 128 block (DeepSeek-V3's weight blocks):
//                cdiv(rows, 128) x cdiv(cols, 128) floats, row-major.
//
// The scales are chosen so that a block's largest magnitude maps to the element type's largest
// finite value (6 for e2m1, 448 for e4m3); nvfp4's tensor scale is amax / (6 * 448), so that every
// group scale fits e4m3. A block of zeros has scale 0 and dequantizes to zeros.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::quant {

enum class Format { nvfp4, fp8_1x128, fp8_128x128 };

std::optional<Format> parse_format(std::string_view name);  // "nvfp4", "fp8-1x128", "fp8-128x128"
std::string_view format_name(Format format);
std::vector<std::string> format_names();

// Each block's extent: rows x cols of elements that share one scale.
struct BlockShape {
  int64_t rows, cols;
};
BlockShape block_shape(Format format);

struct Quantized {
  Format format = Format::nvfp4;
  int64_t rows = 0, cols = 0;
  std::vector<uint8_t> values;       // as the header says: packed nibbles (nvfp4) or e4m3 bytes
  std::vector<uint8_t> scale_bytes;  // nvfp4: e4m3 group scales
  std::vector<float> scale_floats;   // fp8-*: fp32 block scales
  float tensor_scale = 1.0f;         // nvfp4 only

  int64_t value_bytes_per_row() const;
  int64_t scale_rows() const;  // the scale matrix's shape, row-major
  int64_t scale_cols() const;
};

// The fp8 formats' scales as cuBLASLt's block-scaled matmul reads them, and `ktune gemm --scaling
// block` with it: fp8-1x128's (an activation's, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F) transposed,
// rows contiguous: the scale of row r's block j at j * rows + r; fp8-128x128's (a weight's,
// BLK128x128_32F) row-major with each row padded with zeros to a multiple of 4 scales. ConfigError
// for nvfp4, whose Hopper kernels do not exist yet (Blackwell's take a swizzled layout).
std::vector<float> cublaslt_scales(const Quantized& q);
// The length of a row of BLK128x128_32F scales over `k_blocks` blocks of 128 columns: a multiple
// of 4 (the padding zeros).
int64_t cublaslt_blk128_row(int64_t k_blocks);

// Throws ConfigError where x does not hold rows * cols values or a dimension is not positive.
Quantized quantize(Format format, const std::vector<float>& x, int64_t rows, int64_t cols);
std::vector<float> dequantize(const Quantized& q);

// How far a dequantized matrix is from the original: the largest absolute error, the largest
// error relative to its block's largest magnitude, and the normalized error ||x^ - x|| / ||x||.
struct QuantError {
  double max_abs = 0, max_of_block_amax = 0, normalized = 0;
};
QuantError quant_error(const Quantized& q, const std::vector<float>& x, const std::vector<float>& dequantized);

}  // namespace ktune::quant
