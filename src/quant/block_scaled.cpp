#include "quant/block_scaled.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "quant/minifloat.hpp"
#include "util/error.hpp"

namespace ktune::quant {
namespace {

struct FormatInfo {
  Format format;
  std::string_view name;
  BlockShape block;
};
constexpr FormatInfo kFormats[] = {
    {Format::nvfp4, "nvfp4", {1, 16}},
    {Format::fp8_1x128, "fp8-1x128", {1, 128}},
    {Format::fp8_128x128, "fp8-128x128", {128, 128}},
};

const FormatInfo& info(Format format) {
  for (const FormatInfo& f : kFormats)
    if (f.format == format) return f;
  throw Error("unknown block-scaled format");
}

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Calls f(r, c) for every element of block (br, bc).
template <typename F>
void for_block(const Quantized& q, BlockShape b, int64_t br, int64_t bc, F&& f) {
  const int64_t r1 = std::min(q.rows, (br + 1) * b.rows), c1 = std::min(q.cols, (bc + 1) * b.cols);
  for (int64_t r = br * b.rows; r < r1; ++r)
    for (int64_t c = bc * b.cols; c < c1; ++c) f(r, c);
}

void put_nibble(Quantized& q, int64_t r, int64_t c, uint8_t code) {
  uint8_t& byte = q.values[r * q.value_bytes_per_row() + c / 2];
  byte = c % 2 == 0 ? static_cast<uint8_t>((byte & 0xf0) | code) : static_cast<uint8_t>((byte & 0x0f) | (code << 4));
}

uint8_t get_nibble(const Quantized& q, int64_t r, int64_t c) {
  const uint8_t byte = q.values[r * q.value_bytes_per_row() + c / 2];
  return c % 2 == 0 ? byte & 0xf : byte >> 4;
}

// Block (br, bc)'s scale: nvfp4's group scale times the tensor scale, or an fp8 block's scale.
float block_scale(const Quantized& q, int64_t br, int64_t bc) {
  const int64_t at = br * q.scale_cols() + bc;
  return q.format == Format::nvfp4 ? e4m3_decode(q.scale_bytes[at]) * q.tensor_scale : q.scale_floats[at];
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  for (const FormatInfo& f : kFormats)
    if (f.name == name) return f.format;
  return std::nullopt;
}

std::string_view format_name(Format format) { return info(format).name; }

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const FormatInfo& f : kFormats) names.emplace_back(f.name);
  return names;
}

BlockShape block_shape(Format format) { return info(format).block; }

int64_t Quantized::value_bytes_per_row() const { return format == Format::nvfp4 ? cdiv(cols, 2) : cols; }
int64_t Quantized::scale_rows() const { return cdiv(rows, block_shape(format).rows); }
int64_t Quantized::scale_cols() const { return cdiv(cols, block_shape(format).cols); }

Quantized quantize(Format format, const std::vector<float>& x, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) throw ConfigError(fmt::format("a {} x {} matrix has no elements", rows, cols));
  if (static_cast<int64_t>(x.size()) != rows * cols)
    throw ConfigError(fmt::format("{} values for a {} x {} matrix ({} expected)", x.size(), rows, cols, rows * cols));
  Quantized q;
  q.format = format, q.rows = rows, q.cols = cols;
  q.values.assign(rows * q.value_bytes_per_row(), 0);
  const BlockShape b = block_shape(format);
  const int64_t blocks = q.scale_rows() * q.scale_cols();
  const bool fp4 = format == Format::nvfp4;
  if (fp4) {
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::fabs(v));
    q.tensor_scale = amax / (kE2m1Max * kE4m3Max);
    q.scale_bytes.assign(blocks, 0);
  } else {
    q.scale_floats.assign(blocks, 0.0f);
  }
  for (int64_t br = 0; br < q.scale_rows(); ++br)
    for (int64_t bc = 0; bc < q.scale_cols(); ++bc) {
      float bmax = 0;
      for_block(q, b, br, bc, [&](int64_t r, int64_t c) { bmax = std::max(bmax, std::fabs(x[r * cols + c])); });
      const int64_t at = br * q.scale_cols() + bc;
      // The scale that maps the block's largest magnitude onto the element type's largest value,
      // as stored (e4m3 for nvfp4's groups, so the one used below is the rounded one).
      float scale;
      if (fp4) {
        q.scale_bytes[at] = q.tensor_scale > 0 ? e4m3_encode(bmax / (kE2m1Max * q.tensor_scale)) : 0;
        scale = e4m3_decode(q.scale_bytes[at]) * q.tensor_scale;
      } else {
        scale = q.scale_floats[at] = bmax / kE4m3Max;
      }
      for_block(q, b, br, bc, [&](int64_t r, int64_t c) {
        const float v = scale > 0 ? x[r * cols + c] / scale : 0.0f;
        if (fp4)
          put_nibble(q, r, c, e2m1_encode(v));
        else
          q.values[r * cols + c] = e4m3_encode(v);
      });
    }
  return q;
}

int64_t cublaslt_blk128_row(int64_t k_blocks) { return cdiv(k_blocks, 4) * 4; }

std::vector<float> cublaslt_scales(const Quantized& q) {
  if (q.format == Format::nvfp4)
    throw ConfigError("nvfp4's scales have no cuBLASLt layout for Hopper: they are written row-major only");
  const int64_t rows = q.scale_rows(), cols = q.scale_cols();
  if (q.format == Format::fp8_1x128) {
    std::vector<float> out(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cols; ++j) out[j * rows + r] = q.scale_floats[r * cols + j];
    return out;
  }
  const int64_t padded = cublaslt_blk128_row(cols);
  std::vector<float> out(rows * padded, 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[i * padded + j] = q.scale_floats[i * cols + j];
  return out;
}

std::vector<float> dequantize(const Quantized& q) {
  std::vector<float> x(q.rows * q.cols);
  const BlockShape b = block_shape(q.format);
  for (int64_t br = 0; br < q.scale_rows(); ++br)
    for (int64_t bc = 0; bc < q.scale_cols(); ++bc) {
      const float scale = block_scale(q, br, bc);
      for_block(q, b, br, bc, [&](int64_t r, int64_t c) {
        const float v =
            q.format == Format::nvfp4 ? e2m1_decode(get_nibble(q, r, c)) : e4m3_decode(q.values[r * q.cols + c]);
        x[r * q.cols + c] = v * scale;
      });
    }
  return x;
}

QuantError quant_error(const Quantized& q, const std::vector<float>& x, const std::vector<float>& dequantized) {
  QuantError e;
  const BlockShape b = block_shape(q.format);
  std::vector<float> block_amax(q.scale_rows() * q.scale_cols(), 0.0f);
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      float& m = block_amax[(r / b.rows) * q.scale_cols() + c / b.cols];
      m = std::max(m, std::fabs(x[r * q.cols + c]));
    }
  double diff2 = 0, ref2 = 0;
  for (int64_t r = 0; r < q.rows; ++r)
    for (int64_t c = 0; c < q.cols; ++c) {
      const double d = std::fabs(static_cast<double>(dequantized[r * q.cols + c]) - x[r * q.cols + c]);
      const float m = block_amax[(r / b.rows) * q.scale_cols() + c / b.cols];
      e.max_abs = std::max(e.max_abs, d);
      if (m > 0) e.max_of_block_amax = std::max(e.max_of_block_amax, d / m);
      diff2 += d * d;
      ref2 += static_cast<double>(x[r * q.cols + c]) * x[r * q.cols + c];
    }
  e.normalized = ref2 > 0 ? std::sqrt(diff2 / ref2) : 0;
  return e;
}

}  // namespace ktune::quant
