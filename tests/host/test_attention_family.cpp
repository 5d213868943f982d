// The attention family without a GPU: its subcommand's flags (hyphenated names, --causal as a
// switch, dimensions that default to another), what it refuses, its cost, and the batches of
// heads its reference and unfused baseline walk (every query head exactly once, at the right
// offsets of Q, K/V and the logsumexp, in both layouts and with grouped-query heads).
#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "cli/common.hpp"
#include "families/attention_reference.hpp"
#include "core/attention_shape.hpp"
#include "families/family.hpp"
#include "util/error.hpp"

namespace ktune {
namespace {

Problem parse(std::vector<std::string> args) {
  const KernelFamily& family = find_family("attention");
  CLI::App app;
  cli::ProblemFlags flags;
  cli::add_problem_flags(app, flags, family, /*required=*/true);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  app.parse(args);
  return cli::make_problem(family, flags);
}

TEST(AttentionFamily, FlagsAreHyphenatedCausalIsASwitchAndKvDimensionsDefault) {
  const Problem p = parse({"--batch", "4", "--heads", "32", "--seqlen", "4096", "--head-dim", "128", "--causal"});
  EXPECT_EQ(p.dims.at("head_dim"), 128);
  EXPECT_EQ(p.dims.at("kv_heads"), 32);
  EXPECT_EQ(p.dims.at("seqlen_kv"), 4096);
  EXPECT_EQ(p.option("causal"), "yes");
  EXPECT_EQ(p.option("layout"), "bhsd");
  const Problem q = parse({"--batch", "1", "--heads", "8", "--kv-heads", "2", "--seqlen", "1", "--seqlen-kv", "999",
                           "--head-dim", "64", "--layout", "bshd"});
  EXPECT_EQ(q.dims.at("kv_heads"), 2);
  EXPECT_EQ(q.dims.at("seqlen_kv"), 999);
  EXPECT_EQ(q.option("causal"), "no");
  EXPECT_EQ(q.option("layout"), "bshd");
  EXPECT_NO_THROW(check_problem(q));
}

TEST(AttentionFamily, RefusesWhatNoKernelComputes) {
  auto problem = [](int64_t heads, int64_t kv_heads, int64_t seqlen, int64_t seqlen_kv, int64_t head_dim,
                    const char* causal) {
    return Problem{"attention",
                   {{"batch", 1}, {"heads", heads}, {"kv_heads", kv_heads}, {"seqlen", seqlen},
                    {"seqlen_kv", seqlen_kv}, {"head_dim", head_dim}},
                   "fp16",
                   {{"causal", causal}, {"layout", "bhsd"}}};
  };
  EXPECT_NO_THROW(check_problem(problem(8, 2, 100, 100, 64, "yes")));
  EXPECT_THROW(check_problem(problem(8, 3, 100, 100, 64, "no")), ConfigError);    // 3 does not divide 8
  EXPECT_THROW(check_problem(problem(8, 8, 100, 100, 96, "no")), ConfigError);    // head_dim 96
  EXPECT_THROW(check_problem(problem(8, 8, 100, 50, 64, "yes")), ConfigError);    // causal, fewer keys
  EXPECT_NO_THROW(check_problem(problem(8, 8, 100, 50, 64, "no")));
}

TEST(AttentionFamily, CausalHalvesTheFlops) {
  const KernelFamily& f = find_family("attention");
  Problem p = parse({"--batch", "2", "--heads", "3", "--seqlen", "100", "--head-dim", "64"});
  EXPECT_DOUBLE_EQ(f.cost(p).flops, 4.0 * 2 * 3 * 100 * 100 * 64);
  p.options["causal"] = "yes";
  EXPECT_DOUBLE_EQ(f.cost(p).flops, 2.0 * 2 * 3 * 100 * 100 * 64);
}

// Every (batch, head) once: its Q offset, its K/V head's offset, its LSE row, as the layout puts them.
void expect_every_head_once(const AttentionShape& s, int64_t max_count) {
  const AttentionShape::Strides qs = s.q_strides(), ks = s.kv_strides();
  std::set<std::tuple<int64_t, int64_t, int64_t>> expected, got;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.heads; ++h)
      expected.insert({b * qs.batch + h * qs.head, b * ks.batch + (h / s.group()) * ks.head, (b * s.heads + h) * s.seqlen_q});
  size_t heads = 0;
  for (const HeadBatch& hb : head_batches(s, max_count)) {
    EXPECT_GE(hb.count, 1);
    EXPECT_LE(hb.count, max_count);
    for (int64_t f = 0; f < hb.count; ++f, ++heads)
      got.insert({hb.q_offset + f * hb.q_stride, hb.kv_offset + f * hb.kv_stride, hb.lse_offset + f * hb.lse_stride});
  }
  EXPECT_EQ(heads, expected.size());  // none twice
  EXPECT_EQ(got, expected);
}

TEST(AttentionFamily, HeadBatchesCoverEveryHeadOnceInBothLayouts) {
  for (bool bshd : {false, true})
    for (int64_t kv_heads : {6, 3, 1})
      for (int64_t max_count : {1, 4, 1000}) {
        AttentionShape s;
        s.batch = 3;
        s.heads = 6;
        s.kv_heads = kv_heads;
        s.seqlen_q = 5;
        s.seqlen_kv = 7;
        s.head_dim = 64;
        s.bshd = bshd;
        SCOPED_TRACE(testing::Message() << "bshd " << bshd << " kv_heads " << kv_heads << " max " << max_count);
        expect_every_head_once(s, max_count);
      }
}

TEST(AttentionFamily, HeadsWithinABudget) {
  AttentionShape s;
  s.seqlen_q = 1024;
  s.seqlen_kv = 2048;
  EXPECT_EQ(heads_within(s, 2, int64_t{1} << 30), 256);
  EXPECT_EQ(heads_within(s, 4, 1), 1);  // at least one head, whatever the budget
}

}  // namespace
}  // namespace ktune
