// Roofline arithmetic against hand computations: a compute-bound GEMM (4096^3 fp16) and a
// memory-bound one (8192x8192x16 fp16) under the same roofs, plus the edges (the ridge itself, a
// missing dtype, an untimed record). The GEMM cost model itself is checked against the same
// hand numbers, so a change there shows up here too.
#include <gtest/gtest.h>

#include "families/family.hpp"
#include "report/roofline.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

// Roofs chosen for round numbers: 700 TFLOPS, 3000 GB/s -> ridge 700e12 / 3000e9 = 233.33 FLOP/B.
Ceilings ceilings() {
  Ceilings c;
  c.source = "measured";
  c.label = "test GPU";
  c.copy_gbps = 3000;
  c.tflops = {{"fp16", 700}, {"bf16", 720}, {"fp32", 350}};
  return c;
}

// EXPECT_NEAR relative to the expected value.
#define EXPECT_CLOSE(actual, expected) EXPECT_NEAR((actual), (expected), 1e-9 * std::abs(expected) + 1e-12)

Problem gemm(int64_t m, int64_t n, int64_t k) { return Problem{"gemm", {{"M", m}, {"N", n}, {"K", k}}, "fp16", {{"layout", "rr"}}}; }

TEST(Roofline, GemmCostMatchesHandComputation) {
  const KernelFamily& family = find_family("gemm");
  // 4096^3: 2*4096^3 flops; fp16 A, B and C of 4096^2 elements, 2 bytes each.
  Cost big = family.cost(gemm(4096, 4096, 4096));
  EXPECT_EQ(big.flops, 137438953472.0);
  EXPECT_EQ(big.min_bytes, 100663296.0);  // 3 * 4096^2 * 2
  // 8192x8192x16: 2*8192*8192*16 flops; A 8192x16, B 16x8192, C 8192x8192, 2 bytes each.
  Cost thin = family.cost(gemm(8192, 8192, 16));
  EXPECT_EQ(thin.flops, 2147483648.0);
  EXPECT_EQ(thin.min_bytes, 134742016.0);  // 2 * (131072 + 131072 + 67108864)
}

TEST(Roofline, RidgePoint) {
  EXPECT_CLOSE(ridge_point(roofs_for(ceilings(), "fp16")), 700e12 / 3000e9);  // 233.33 FLOP/B
  EXPECT_CLOSE(ridge_point(roofs_for(ceilings(), "fp32")), 350e12 / 3000e9);  // 116.67 FLOP/B
}

TEST(Roofline, ComputeBoundGemm4096) {
  const Cost cost{137438953472.0, 100663296.0};
  const RooflinePoint p = roofline(cost, 0.2, roofs_for(ceilings(), "fp16"));  // 0.2 ms
  EXPECT_CLOSE(p.intensity, 4096.0 / 3);          // 2*n^3 / (6*n^2) = n/3 = 1365.33 FLOP/B
  EXPECT_CLOSE(p.ridge, 233.33333333333334);
  EXPECT_EQ(p.bound, "compute");                   // 1365 > 233
  EXPECT_CLOSE(p.achieved_tflops, 687.19476736);   // 1.374e11 / 2e-4 s / 1e12
  EXPECT_CLOSE(p.achieved_gbps, 503.31648);        // 1.007e8 / 2e-4 s / 1e9
  EXPECT_CLOSE(p.attainable_tflops, 700);          // min(700, 1365.33 * 3 TB/s) = the compute roof
  EXPECT_CLOSE(p.pct_compute_roof, 98.17068105142857);  // 687.19 / 700
  EXPECT_CLOSE(p.pct_memory_roof, 16.777216);            // 503.32 / 3000
  EXPECT_CLOSE(p.pct_attainable, p.pct_compute_roof);    // bounded by compute
}

TEST(Roofline, MemoryBoundGemm8192x8192x16) {
  const Cost cost{2147483648.0, 134742016.0};
  const RooflinePoint p = roofline(cost, 0.05, roofs_for(ceilings(), "fp16"));  // 0.05 ms
  EXPECT_CLOSE(p.intensity, 131072.0 / 8224);      // 8192*16 / (32 + 8192) = 15.94 FLOP/B
  EXPECT_EQ(p.bound, "memory");                     // 15.9 < 233
  EXPECT_CLOSE(p.achieved_tflops, 42.94967296);     // 2.147e9 / 5e-5 s / 1e12
  EXPECT_CLOSE(p.achieved_gbps, 2694.84032);        // 1.347e8 / 5e-5 s / 1e9
  EXPECT_CLOSE(p.attainable_tflops, 131072.0 / 8224 * 3);  // intensity * 3 TB/s = 47.81 TFLOPS
  EXPECT_CLOSE(p.pct_memory_roof, 89.82801066666667);      // 2694.84 / 3000
  EXPECT_CLOSE(p.pct_compute_roof, 6.135667565714286);     // 42.95 / 700
  EXPECT_CLOSE(p.pct_attainable, p.pct_memory_roof);       // bounded by memory: the same fraction
}

TEST(Roofline, AtTheRidgeItIsComputeBound) {
  // intensity = ridge exactly: both roofs are reached at the same time; we call it compute.
  const Cost cost{700.0, 3.0};
  const RooflinePoint p = roofline(cost, 1.0, roofs_for(ceilings(), "fp16"));
  EXPECT_CLOSE(p.intensity, p.ridge);
  EXPECT_EQ(p.bound, "compute");
  EXPECT_CLOSE(p.attainable_tflops, 700);
}

TEST(Roofline, DtypesUseTheirOwnComputeRoof) {
  const Cost cost{137438953472.0, 100663296.0 * 2};  // a 4096^3 fp32 GEMM: 4-byte operands
  const RooflinePoint p = roofline(cost, 0.4, roofs_for(ceilings(), "fp32"));
  EXPECT_CLOSE(p.achieved_tflops, 343.59738368);
  EXPECT_CLOSE(p.pct_compute_roof, 343.59738368 / 350 * 100);
}

TEST(Roofline, RejectsWhatHasNoPoint) {
  const Cost cost{1e9, 1e6};
  EXPECT_THROW(roofline(cost, 0, roofs_for(ceilings(), "fp16")), Error);
  EXPECT_THROW(roofs_for(ceilings(), "fp8"), ConfigError);
  Ceilings zero = ceilings();
  zero.copy_gbps = 0;
  EXPECT_THROW(roofs_for(zero, "fp16"), ConfigError);
}

}  // namespace
}  // namespace ktune
