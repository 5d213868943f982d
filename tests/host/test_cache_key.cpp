// The best-config cache key must change with everything that can change the answer: the kernel,
// every header it may include, the sweep config's text, the tolerances and the compile flags. A
// winner chosen under --atol 1, or before a header edit, must never be served to a later run.
#include <gtest/gtest.h>

#include "cli/common.hpp"
#include "compile/kernel_source.hpp"
#include "families/family.hpp"
#include "tune/tuner.hpp"

namespace ktune {
namespace {

DeviceInfo test_device() {
  DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sm_count = 132;
  d.driver_version = 13000;
  return d;
}

class SweepsCacheKey : public ::testing::Test {
 protected:
  void SetUp() override {
    const KernelFamily& gemm = find_family("gemm");
    sweep_.config = cli::embedded_config("configs/gemm_mma.json", gemm);
    sweep_.source = resolve_kernel_source(sweep_.config);
    ASSERT_FALSE(sweep_.source.headers.empty()) << "gemm kernels include headers from kernels/";
  }
  CacheKey key(const Sweep& s, const TuneOptions& o = {}) const { return sweeps_cache_key({&s}, problem_, device_, o); }

  Sweep sweep_;
  Problem problem_{"gemm", {{"M", 1000}, {"N", 1000}, {"K", 512}}, "fp16", {{"layout", "rr"}}};
  DeviceInfo device_ = test_device();
};

TEST_F(SweepsCacheKey, SameSweepSameKey) { EXPECT_EQ(key(sweep_), key(sweep_)); }

TEST_F(SweepsCacheKey, EditingAnIncludedHeaderGivesANewKey) {
  Sweep edited = sweep_;
  edited.source.headers.front().second += "\n// an edit\n";
  EXPECT_NE(key(edited).kernel_hash, key(sweep_).kernel_hash);
}

TEST_F(SweepsCacheKey, EditingTheKernelGivesANewKey) {
  Sweep edited = sweep_;
  edited.source.text += "\n";
  EXPECT_NE(key(edited), key(sweep_));
}

TEST_F(SweepsCacheKey, EditingTheConfigGivesANewKey) {
  Sweep edited = sweep_;
  const size_t at = edited.config.text.find("\"parameters\"");
  ASSERT_NE(at, std::string::npos);
  edited.config.text.insert(at, " ");  // even whitespace: the text is what was tuned
  EXPECT_NE(key(edited), key(sweep_));
}

TEST_F(SweepsCacheKey, AToleranceOverrideGivesANewKey) {
  TuneOptions loose;
  loose.tolerance.atol = 1.0;
  EXPECT_NE(key(sweep_, loose), key(sweep_));
  TuneOptions norm;
  norm.tolerance.norm_rel = 0.5;
  EXPECT_NE(key(sweep_, norm), key(sweep_));
  EXPECT_NE(key(sweep_, norm), key(sweep_, loose));
}

TEST_F(SweepsCacheKey, AllowingSpillsGivesANewKey) {
  TuneOptions spills;
  spills.allow_spills = true;
  EXPECT_NE(key(sweep_, spills), key(sweep_));
}

TEST_F(SweepsCacheKey, MovingTextBetweenPartsGivesANewKey) {
  // Parts are length-delimited: the same bytes split differently are a different sweep.
  Sweep a = sweep_, b = sweep_;
  a.source.text = "ab";
  a.config.text = "c";
  b.source.text = "a";
  b.config.text = "bc";
  EXPECT_NE(key(a), key(b));
}

}  // namespace
}  // namespace ktune
