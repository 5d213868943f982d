// The price of answering a shape from the nearest tuned one (the runtime library, `ktune lookup`,
// `--no-tune`): measured by `ktune bench --nearest-from DIR`, which times, for each problem of a
// suite, the configuration DIR's table would answer with beside the problem's own tuned winner, in
// the same interleaved rounds. Kept in DIR/regret.json (and <stem>.regret.json beside the bench's
// results), read by `ktune lookup`, which says what answers at the asked distance have cost.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace ktune {

struct RegretEntry {
  Problem problem;
  std::string gpu;
  Bindings tuned_dims;  // the nearest row's shape
  double distance = 0;  // store/dispatch_table.hpp's units
  std::string own_config, nearest_config;
  Bindings own_params, nearest_params;
  double own_ms = 0, nearest_ms = 0;  // medians of the same interleaved rounds
  double regret() const { return own_ms > 0 ? nearest_ms / own_ms - 1 : 0; }
};

nlohmann::json regret_json(const std::vector<RegretEntry>& entries);
std::vector<RegretEntry> parse_regret_json(const nlohmann::json& j);  // ConfigError when malformed

// Reads `file` (none: empty), replaces the entries of the same problem and GPU, writes it back.
void merge_regret_file(const std::filesystem::path& file, const std::vector<RegretEntry>& entries);
std::vector<RegretEntry> read_regret_file(const std::filesystem::path& file);  // none: empty

// Regrets of one family grouped by distance: [0, 0.25), [0.25, 0.5), [0.5, 1), [1, 2), [2, inf).
struct RegretBucket {
  double low = 0, high = 0;
  size_t count = 0;
  double median = 0, p90 = 0, worst = 0;  // fractions: 0.03 is 3% slower than the shape's own winner
  // Answers in this bucket are worth a tuning of their own: a median above 3% or a tenth above 10%.
  bool retune() const { return count > 0 && (median > 0.03 || p90 > 0.10); }
};
std::vector<RegretBucket> regret_buckets(const std::vector<RegretEntry>& entries, const std::string& family);
// The bucket `distance` falls in.
RegretBucket regret_bucket_at(const std::vector<RegretEntry>& entries, const std::string& family, double distance);

}  // namespace ktune
