// A matrix as raw little-endian bytes on disk (what numpy's tofile() or torch's
// tensor.numpy().tofile() writes): fp32, fp16 or bf16 elements, row-major, no header.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace ktune::quant {

// The file's elements widened to fp32. Throws ConfigError for an unknown dtype, or a file whose
// size is not rows * cols elements (naming both).
std::vector<float> read_raw_matrix(const std::filesystem::path& path, std::string_view dtype, int64_t rows,
                                   int64_t cols);

// N(0,1) values from `seed`: the input `ktune quantize --random` quantizes.
std::vector<float> random_normal_matrix(int64_t rows, int64_t cols, uint64_t seed);

}  // namespace ktune::quant
