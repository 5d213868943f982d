// `ktune quantize`: a matrix (a raw file, or N(0,1) values ktune generates) into one of the
// block-scaled formats of quant/block_scaled.hpp, written as PREFIX.values, PREFIX.scales and
// PREFIX.json (the format, shapes, layouts, tensor scale and how far the dequantized matrix is
// from the input), so that a user can feed their own weights to a block-scaled kernel and see
// what the format costs them in accuracy. docs/formats.md has the layouts bit by bit.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/validators.hpp"
#include "quant/block_scaled.hpp"
#include "quant/raw_matrix.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace ktune::cli {
namespace {

std::string_view as_bytes(const void* data, size_t bytes) { return {static_cast<const char*>(data), bytes}; }

// Where the scale of block (i, j) of the scale matrix lies in OUT.scales.
std::string scale_layout(const quant::Quantized& q, bool cublaslt) {
  if (!cublaslt) return "row-major: the scale of block (i, j) at i * cols + j";
  if (q.format == quant::Format::fp8_1x128)
    return "cuBLASLt VEC128_32F (ktune gemm --scaling block's A): transposed, the scale of block (i, j) at j * rows + i";
  const int64_t row = quant::cublaslt_blk128_row(q.scale_cols());
  return fmt::format("cuBLASLt BLK128x128_32F (ktune gemm --scaling block's B): row-major, rows padded with zeros to "
                     "{} scales: the scale of block (i, j) at i * {} + j",
                     row, row);
}

nlohmann::json describe(const quant::Quantized& q, const std::string& prefix, const quant::QuantError& e,
                        bool cublaslt) {
  const bool fp4 = q.format == quant::Format::nvfp4;
  nlohmann::json j;
  j["format"] = quant::format_name(q.format);
  j["rows"] = q.rows;
  j["cols"] = q.cols;
  j["values"] = {{"file", prefix + ".values"},
                 {"bytes", q.values.size()},
                 {"layout", fp4 ? "row-major, cdiv(cols, 2) bytes a row; element 2i in bits 0-3 of byte i, 2i+1 in "
                                  "bits 4-7; e2m1"
                                : "row-major, one e4m3 byte an element"}};
  j["scales"] = {{"file", prefix + ".scales"},
                 {"type", fp4 ? "e4m3" : "fp32"},
                 {"rows", q.scale_rows()},
                 {"cols", q.scale_cols()},
                 {"block", {quant::block_shape(q.format).rows, quant::block_shape(q.format).cols}},
                 {"layout", scale_layout(q, cublaslt)}};
  if (fp4) j["tensor_scale"] = q.tensor_scale;
  j["dequantized"] = fp4 ? "e2m1(value) * e4m3(group scale) * tensor_scale" : "e4m3(value) * block scale";
  j["error"] = {{"max_abs", e.max_abs}, {"max_of_block_amax", e.max_of_block_amax}, {"normalized", e.normalized}};
  return j;
}

}  // namespace

void setup_quantize(CLI::App& app, int& exit_code) {
  struct Options {
    std::string format, in, in_dtype = "fp32", out, dequantized, scales = "rows";
    int64_t rows = 0, cols = 0;
    std::optional<uint64_t> random;
  };
  auto opts = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "quantize", "a matrix into a block-scaled format (nvfp4, fp8-1x128, fp8-128x128): values, scales, accuracy");
  cmd->add_option("--format", opts->format, "nvfp4 | fp8-1x128 | fp8-128x128 (docs/formats.md)")->required();
  cmd->add_option("--rows", opts->rows, "rows (a weight N x K has N)")->required()->check(at_least(1));
  cmd->add_option("--cols", opts->cols, "columns, the contiguous dimension the blocks run along (K)")
      ->required()
      ->check(at_least(1));
  auto* in = cmd->add_option("--in", opts->in, "raw row-major matrix file (numpy's tofile), no header");
  cmd->add_option("--in-dtype", opts->in_dtype, "the file's elements: fp32 (default), fp16, bf16");
  auto* random = cmd->add_option("--random", opts->random, "quantize N(0,1) values from this seed instead of a file");
  in->excludes(random);
  cmd->add_option("--out", opts->out, "writes OUT.values, OUT.scales and OUT.json")->required();
  cmd->add_option("--dequantized", opts->dequantized, "also write the dequantized matrix here (raw fp32)");
  cmd->add_option("--scales", opts->scales,
                  "rows: the scale matrix row-major (default); cublaslt: fp8 scales as cuBLASLt's block-scaled "
                  "matmul and `ktune gemm --scaling block` read them (1x128 transposed, 128x128 rows padded to 4)")
      ->check(CLI::IsMember({"rows", "cublaslt"}));
  cmd->callback([opts, &exit_code] {
    const std::optional<quant::Format> format = quant::parse_format(opts->format);
    if (!format)
      throw ConfigError(fmt::format("--format {}: one of {}", opts->format, fmt::join(quant::format_names(), ", ")));
    if (opts->in.empty() && !opts->random) throw ConfigError("quantize needs --in FILE or --random SEED");
    const std::vector<float> x = opts->random
                                     ? quant::random_normal_matrix(opts->rows, opts->cols, *opts->random)
                                     : quant::read_raw_matrix(opts->in, opts->in_dtype, opts->rows, opts->cols);
    const bool cublaslt = opts->scales == "cublaslt";
    if (cublaslt && *format == quant::Format::nvfp4)
      throw ConfigError("--scales cublaslt: fp8 formats only (nvfp4's scales are written row-major)");
    const quant::Quantized q = quant::quantize(*format, x, opts->rows, opts->cols);
    const std::vector<float> back = quant::dequantize(q);
    const quant::QuantError e = quant::quant_error(q, x, back);

    write_file_atomic(opts->out + ".values", as_bytes(q.values.data(), q.values.size()));
    if (q.format == quant::Format::nvfp4)
      write_file_atomic(opts->out + ".scales", as_bytes(q.scale_bytes.data(), q.scale_bytes.size()));
    else {
      const std::vector<float> scales = cublaslt ? quant::cublaslt_scales(q) : q.scale_floats;
      write_file_atomic(opts->out + ".scales", as_bytes(scales.data(), scales.size() * sizeof(float)));
    }
    if (!opts->dequantized.empty())
      write_file_atomic(opts->dequantized, as_bytes(back.data(), back.size() * sizeof(float)));
    write_file_atomic(opts->out + ".json", describe(q, opts->out, e, cublaslt).dump(2) + "\n");

    fmt::print("{} x {} as {}: {} value bytes, {} x {} scales{}\n", q.rows, q.cols, quant::format_name(q.format),
               q.values.size(), q.scale_rows(), q.scale_cols(),
               q.format == quant::Format::nvfp4 ? fmt::format(", tensor scale {:.6g}", q.tensor_scale) : "");
    fmt::print("dequantized: normalized error {:.3g}, largest error {:.3g} ({:.3g} of its block's largest value)\n",
               e.normalized, e.max_abs, e.max_of_block_amax);
    fmt::print("wrote {0}.values, {0}.scales, {0}.json{1}\n", opts->out,
               opts->dequantized.empty() ? "" : ", " + opts->dequantized);
    exit_code = 0;
  });
}

}  // namespace ktune::cli
