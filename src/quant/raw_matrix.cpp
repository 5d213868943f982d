#include "quant/raw_matrix.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include <cstring>
#include <random>
#include <string>

#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune::quant {

std::vector<float> read_raw_matrix(const std::filesystem::path& path, std::string_view dtype, int64_t rows,
                                   int64_t cols) {
  int bytes;
  if (dtype == "fp32")
    bytes = 4;
  else if (dtype == "fp16" || dtype == "bf16")
    bytes = 2;
  else
    throw ConfigError(fmt::format("--in-dtype {}: fp32, fp16 or bf16", dtype));
  if (!std::filesystem::exists(path)) throw ConfigError(fmt::format("{}: no such file", path.string()));
  const std::string raw = read_file(path);
  const auto expected = static_cast<uint64_t>(rows) * cols * bytes;
  if (raw.size() != expected)
    throw ConfigError(fmt::format("{}: {} bytes, but {} x {} {} elements are {} bytes", path.string(), raw.size(),
                                  rows, cols, dtype, expected));
  std::vector<float> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) {
    if (bytes == 4) {
      std::memcpy(&x[i], raw.data() + 4 * i, 4);
    } else {
      uint16_t bits;
      std::memcpy(&bits, raw.data() + 2 * i, 2);
      __half_raw h;
      h.x = bits;
      __nv_bfloat16_raw b;
      b.x = bits;
      x[i] = dtype == "fp16" ? __half2float(__half(h)) : __bfloat162float(__nv_bfloat16(b));
    }
  }
  return x;
}

std::vector<float> random_normal_matrix(int64_t rows, int64_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(rows * cols);
  for (float& v : x) v = normal(rng);
  return x;
}

}  // namespace ktune::quant
