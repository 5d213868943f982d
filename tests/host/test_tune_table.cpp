// The summary table ktune gemm prints: best first, whole labels (two candidates may differ only
// in their last parameter), the reference line last.
#include <gtest/gtest.h>

#include "cli/common.hpp"

namespace ktune {
namespace {

CandidateRecord timed(std::string source, std::string config, Bindings params, double ms) {
  CandidateRecord r;
  r.role = source == "cublas" ? Role::baseline : Role::candidate;
  r.source = std::move(source);
  r.config_name = std::move(config);
  r.params = std::move(params);
  r.kernel_name = "cublasGemmEx (fp16, fp32 accumulate)";
  r.disposition = Disposition::passed;
  r.time = TimeStats{};
  r.time->median = ms;
  return r;
}

TEST(TuneTable, BestFirstWholeLabelsReferenceLast) {
  TuneResult r;
  r.result.problem = {"gemm", {{"M", 64}, {"N", 64}, {"K", 64}}, "fp16", {{"layout", "rr"}}};
  r.result.records.push_back(timed("cublas", "", {}, 1.0));
  Bindings long_params = {{"BLOCKS_PER_SM", 1}, {"BLOCK_K", 64}, {"BLOCK_M", 128}, {"BLOCK_N", 256},
                          {"CLUSTER_M", 1},     {"GROUP_M", 16}, {"NUM_CONSUMERS", 2}};
  Bindings slower = long_params, faster = long_params;
  slower["NUM_STAGES"] = 3;
  faster["NUM_STAGES"] = 4;
  r.result.records.push_back(timed("ktune", "gemm_wgmma", slower, 2.0));
  r.result.records.push_back(timed("ktune", "gemm_mma", {{"BLOCK_M", 64}}, 1.5));
  r.result.records.push_back(timed("ktune", "gemm_wgmma", faster, 1.2));

  testing::internal::CaptureStdout();
  cli::print_tune_result(r, 10);
  const std::string out = testing::internal::GetCapturedStdout();
  const size_t first = out.find("NS=4"), second = out.find("BM=64"), third = out.find("NS=3"), ref = out.find("ref ");
  ASSERT_NE(first, std::string::npos) << out;
  ASSERT_NE(third, std::string::npos) << out;  // the distinguishing last parameter is not cut off
  EXPECT_LT(first, second) << out;
  EXPECT_LT(second, third) << out;
  EXPECT_LT(third, ref) << out;
  EXPECT_NE(out.find("gemm_mma BM=64"), std::string::npos) << out;  // several configs: each row names its own
  EXPECT_NE(out.find("3 passed"), std::string::npos) << out;
}

}  // namespace
}  // namespace ktune
