// The tuned table an application compiles in (`ktune export`) and the nearest-shape rule that
// answers for shapes never tuned (`ktune lookup`, and the exported C++'s lookup()).
//
// One row per tuned shape and GPU: family, dtype, options, dimensions, the winning kernel's name,
// parameters and launch. Where the cache holds several winners for one shape and GPU (other kernel
// sources, drivers or judging settings), the row is the one measured fastest.
//
// Nearest shape: among rows of the same family, dtype and options (and GPU, when one is named),
// the one whose dimensions are closest in log space, sum over dimensions of |log2(asked / tuned)|:
// 4000 is as near 4096 as 4096 is near 4000, and a factor of two costs 1 in any dimension. Rows
// with other dimension names never match; ties go to the smaller row in table order.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "core/record.hpp"
#include "store/cache.hpp"

namespace ktune {

struct DispatchRow {
  std::string family, dtype;
  Options options;
  Bindings dims;
  std::string gpu;
  std::string arch;  // what the GPU's cubins are built for: "sm_90a" ("" in tables from before it was kept)
  std::string config, kernel_name;
  Bindings params;
  int64_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, shared_bytes = 0;
  double median_ms = 0;
  bool operator==(const DispatchRow&) const = default;
};

// Ordered by (family, dtype, options, gpu, dims).
std::vector<DispatchRow> dispatch_table(const std::vector<CacheEntry>& entries);

// Infinity where the dimension names differ or a size is not positive.
double shape_distance(const Bindings& asked, const Bindings& tuned);

struct NearestRow {
  const DispatchRow* row = nullptr;
  double distance = 0;  // 0: tuned for exactly this shape
};
// `gpu` empty: any GPU.
std::optional<NearestRow> nearest_row(const std::vector<DispatchRow>& table, const std::string& family,
                                      const std::string& dtype, const Options& options, const Bindings& dims,
                                      const std::string& gpu);

// The `count` nearest rows by the same rule, nearest first (ties in table order).
std::vector<NearestRow> nearest_rows(const std::vector<DispatchRow>& table, const std::string& family,
                                     const std::string& dtype, const Options& options, const Bindings& dims,
                                     const std::string& gpu, size_t count);

// {"schema": 1, "rows": [...]}, and back (throws ConfigError on a malformed table).
nlohmann::json dispatch_json(const std::vector<DispatchRow>& table);
std::vector<DispatchRow> parse_dispatch_json(const nlohmann::json& j);

// A self-contained C++17 header: the rows as constexpr data and ktune_tuned::lookup(), the
// nearest-shape rule above.
std::string dispatch_cpp(const std::vector<DispatchRow>& table, const std::string& generated_by);

}  // namespace ktune
