// Block-scaled formats on the host (quant/): the element codecs bit by bit, each format's layout
// on blocks whose answer is known, the error bounds the formats promise on random data, and
// `ktune quantize` end to end, bad input included.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "quant/block_scaled.hpp"
#include "quant/minifloat.hpp"
#include "quant/raw_matrix.hpp"
#include "run_ktune.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune::quant {
namespace {

TEST(Minifloat, E2m1CodesAreTheOcpValuesAndRoundTrip) {
  const float magnitudes[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (uint8_t code = 0; code < 16; ++code) {
    const float v = e2m1_decode(code);
    EXPECT_EQ(std::fabs(v), magnitudes[code & 7]) << int(code);
    EXPECT_EQ(std::signbit(v), (code & 8) != 0) << int(code);
    if (code != 8) EXPECT_EQ(e2m1_encode(v), code) << int(code);  // -0 may come back as +0
  }
}

TEST(Minifloat, E2m1RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(e2m1_decode(e2m1_encode(0.25f)), 0.0f);   // tie between 0 and 0.5: 0 is even
  EXPECT_EQ(e2m1_decode(e2m1_encode(0.75f)), 1.0f);   // tie between 0.5 and 1
  EXPECT_EQ(e2m1_decode(e2m1_encode(1.25f)), 1.0f);   // tie between 1 and 1.5
  EXPECT_EQ(e2m1_decode(e2m1_encode(2.5f)), 2.0f);    // tie between 2 and 3
  EXPECT_EQ(e2m1_decode(e2m1_encode(5.0f)), 4.0f);    // tie between 4 and 6
  EXPECT_EQ(e2m1_decode(e2m1_encode(5.1f)), 6.0f);
  EXPECT_EQ(e2m1_decode(e2m1_encode(100.0f)), 6.0f);  // saturates, no infinity
  EXPECT_EQ(e2m1_encode(-3.0f), 0xd);
}

TEST(Minifloat, E4m3EveryFiniteCodeRoundTripsAndLargeValuesSaturate) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7f) == 0x7f) continue;  // NaN
    const float v = e4m3_decode(static_cast<uint8_t>(code));
    ASSERT_TRUE(std::isfinite(v)) << code;
    if (code != 0x80) EXPECT_EQ(e4m3_encode(v), code) << code;
  }
  EXPECT_EQ(e4m3_decode(0x7e), kE4m3Max);
  EXPECT_EQ(e4m3_encode(1000.0f), 0x7e);
  EXPECT_EQ(e4m3_decode(0x01), std::ldexp(1.0f, -9));  // the smallest subnormal
}

TEST(BlockScaled, Nvfp4PacksTwoElementsAByteLowNibbleFirst) {
  // The tensor's largest value is 6, so the tensor scale is 6 / (6 * 448) and the group scale
  // 448 (exact in e4m3): every value on e2m1's grid comes back exactly.
  std::vector<float> x = {6, 3, -1.5f, 0.5f, 1, -6, 2, 4, 0, 0, 0, 0, 0, 0, 0, 1.5f, 3};  // 17 columns
  const Quantized q = quantize(Format::nvfp4, x, 1, 17);
  EXPECT_FLOAT_EQ(q.tensor_scale, 1.0f / 448.0f);
  ASSERT_EQ(q.value_bytes_per_row(), 9);
  ASSERT_EQ(q.scale_cols(), 2);
  EXPECT_EQ(q.scale_bytes[0], e4m3_encode(448.0f));
  EXPECT_EQ(q.values[0], 0x57);  // 6 (code 7) in bits 0-3, 3 (code 5) in bits 4-7
  EXPECT_EQ(q.values[1], 0x1b);  // -1.5 (0xb), 0.5 (0x1)
  EXPECT_EQ(q.values[8] >> 4, 0);  // a row of odd length ends in a zero nibble
  // The second group holds only 3: its scale maps 3 onto 6 (0.5 after the tensor scale).
  EXPECT_FLOAT_EQ(e4m3_decode(q.scale_bytes[1]) * q.tensor_scale, 0.5f);
  EXPECT_EQ(dequantize(q), x);
}

TEST(BlockScaled, Fp8BlocksHaveTheirOwnScalesAndShapes) {
  std::vector<float> x(300 * 1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.001f * i) * (1 + i % 7);
  const Quantized rows = quantize(Format::fp8_1x128, x, 300, 1000);
  EXPECT_EQ(rows.scale_rows(), 300);
  EXPECT_EQ(rows.scale_cols(), 8);
  const Quantized tiles = quantize(Format::fp8_128x128, x, 300, 1000);
  EXPECT_EQ(tiles.scale_rows(), 3);
  EXPECT_EQ(tiles.scale_cols(), 8);
  // The last 128 x 128 block is rows 256-299, columns 896-999: its scale is their largest / 448.
  float amax = 0;
  for (int r = 256; r < 300; ++r)
    for (int c = 896; c < 1000; ++c) amax = std::max(amax, std::fabs(x[r * 1000 + c]));
  EXPECT_FLOAT_EQ(tiles.scale_floats[2 * 8 + 7], amax / kE4m3Max);
}

TEST(BlockScaled, ErrorsStayWithinWhatEachFormatCanRepresent) {
  const std::vector<float> x = random_normal_matrix(64, 1000, 7);
  for (Format f : {Format::nvfp4, Format::fp8_1x128, Format::fp8_128x128}) {
    const Quantized q = quantize(f, x, 64, 1000);
    const QuantError e = quant_error(q, x, dequantize(q));
    if (f == Format::nvfp4) {
      // Half of e2m1's widest step (4 to 6) is 1/6 of a group's largest value; the e4m3 group
      // scale's rounding (at most 1/16) can stretch it a little.
      EXPECT_LE(e.max_of_block_amax, (1.0 / 6) * (1 + 1.0 / 16)) << format_name(f);
      EXPECT_LT(e.normalized, 0.12) << format_name(f);
    } else {
      EXPECT_LE(e.max_of_block_amax, 1.0 / 16) << format_name(f);  // half of e4m3's relative step
      EXPECT_LT(e.normalized, 0.04) << format_name(f);
    }
    EXPECT_GT(e.normalized, 0) << format_name(f);
  }
}

TEST(BlockScaled, ZerosStayZeroAndAWrongValueShows) {
  std::vector<float> x(2 * 32, 0.0f);
  Quantized q = quantize(Format::nvfp4, x, 2, 32);
  EXPECT_EQ(q.tensor_scale, 0.0f);
  EXPECT_EQ(dequantize(q), x);
  for (int i = 0; i < 32; ++i) x[32 + i] = 0.1f * (i + 1);  // row 0 zeros, row 1 not
  q = quantize(Format::nvfp4, x, 2, 32);
  EXPECT_EQ(q.scale_bytes[0], 0);
  const QuantError right = quant_error(q, x, dequantize(q));
  q.values[16 + 3] ^= 0x70;  // one element of row 1 to another magnitude
  const QuantError wrong = quant_error(q, x, dequantize(q));
  EXPECT_GT(wrong.max_of_block_amax, 0.25);
  EXPECT_GT(wrong.normalized, right.normalized);
}

TEST(BlockScaled, BadShapesAndFilesAreInputErrors) {
  EXPECT_THROW(quantize(Format::nvfp4, std::vector<float>(10), 3, 4), ConfigError);
  EXPECT_THROW(quantize(Format::fp8_1x128, {}, 0, 4), ConfigError);
  EXPECT_FALSE(parse_format("nvfp8").has_value());
  const auto dir = std::filesystem::temp_directory_path() / "ktune-quant-raw";
  std::filesystem::create_directories(dir);
  const uint16_t bf16[3] = {0x3f80, 0xc000, 0x4040};  // 1, -2, 3
  write_file_atomic(dir / "m.bf16", std::string_view(reinterpret_cast<const char*>(bf16), sizeof bf16));
  EXPECT_EQ(read_raw_matrix(dir / "m.bf16", "bf16", 1, 3), (std::vector<float>{1, -2, 3}));
  EXPECT_THROW(read_raw_matrix(dir / "m.bf16", "bf16", 2, 3), ConfigError);
  EXPECT_THROW(read_raw_matrix(dir / "m.bf16", "int8", 1, 3), ConfigError);
  EXPECT_THROW(read_raw_matrix(dir / "none.bin", "fp32", 1, 3), ConfigError);
}

// The fp8 scales as cuBLASLt and `ktune gemm --scaling block` read them: an activation's 1 x 128
// scales transposed (rows contiguous), a weight's 128 x 128 scales with rows padded to 4.
TEST(BlockScaled, CublasLtScaleLayoutsTransposeAndPad) {
  std::vector<float> x(300 * 1000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1001) - 500.0f;
  const Quantized a = quantize(Format::fp8_1x128, x, 300, 1000);  // 300 x 8 scales
  const std::vector<float> at = cublaslt_scales(a);
  ASSERT_EQ(at.size(), 300u * 8);
  for (int64_t r : {0, 1, 150, 299})
    for (int64_t j : {0, 3, 7}) EXPECT_EQ(at[j * 300 + r], a.scale_floats[r * 8 + j]) << r << " " << j;
  const Quantized b = quantize(Format::fp8_128x128, x, 1000, 300);  // 8 x 3 scales, rows padded to 4
  const std::vector<float> bt = cublaslt_scales(b);
  ASSERT_EQ(bt.size(), 8u * 4);
  for (int64_t i = 0; i < 8; ++i) {
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(bt[i * 4 + j], b.scale_floats[i * 3 + j]);
    EXPECT_EQ(bt[i * 4 + 3], 0.0f);
  }
  EXPECT_THROW(cublaslt_scales(quantize(Format::nvfp4, x, 300, 1000)), ConfigError);
}

TEST(QuantizeCommand, WritesValuesScalesAndADescriptionAndRefusesBadInput) {
  const auto dir = std::filesystem::temp_directory_path() / "ktune-quantize-cmd";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string out = (dir / "w").string();
  test::Ran ran = test::run_ktune("quantize --format nvfp4 --rows 32 --cols 100 --random 3 --out " + out);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(std::filesystem::file_size(out + ".values"), 32u * 50);
  EXPECT_EQ(std::filesystem::file_size(out + ".scales"), 32u * 7);
  const nlohmann::json j = nlohmann::json::parse(read_file(out + ".json"));
  EXPECT_EQ(j.at("format"), "nvfp4");
  EXPECT_GT(j.at("tensor_scale").get<double>(), 0);
  EXPECT_LT(j.at("error").at("normalized").get<double>(), 0.12);

  ran = test::run_ktune("quantize --format fp8-128x128 --rows 3 --cols 4 --in " + out + ".values --out " + out);
  EXPECT_EQ(ran.exit_code, 2) << ran.output;
  EXPECT_NE(ran.output.find("1600 bytes, but 3 x 4 fp32 elements are 48 bytes"), std::string::npos) << ran.output;
  ran = test::run_ktune("quantize --format mxfp4 --rows 3 --cols 4 --random 1 --out " + out);
  EXPECT_EQ(ran.exit_code, 2);
  EXPECT_NE(ran.output.find("one of nvfp4, fp8-1x128, fp8-128x128"), std::string::npos) << ran.output;
  ran = test::run_ktune("quantize --format nvfp4 --rows 3 --cols 4 --out " + out);
  EXPECT_EQ(ran.exit_code, 2);
  EXPECT_NE(ran.output.find("--in FILE or --random SEED"), std::string::npos) << ran.output;
  // fp8 scales in the layout the block-scaled GEMM reads: 7 columns of scales padded to 8.
  ran = test::run_ktune("quantize --format fp8-128x128 --rows 200 --cols 800 --random 2 --scales cublaslt --out " + out);
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  EXPECT_EQ(std::filesystem::file_size(out + ".scales"), 2u * 8 * sizeof(float));
  EXPECT_NE(nlohmann::json::parse(read_file(out + ".json")).at("scales").at("layout").get<std::string>().find(
                "BLK128x128_32F"),
            std::string::npos);
  ran = test::run_ktune("quantize --format nvfp4 --rows 3 --cols 4 --random 1 --scales cublaslt --out " + out);
  EXPECT_EQ(ran.exit_code, 2);
  EXPECT_NE(ran.output.find("fp8 formats only"), std::string::npos) << ran.output;
}

}  // namespace
}  // namespace ktune::quant
