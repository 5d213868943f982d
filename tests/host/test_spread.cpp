// spread_picks: the sample of a sweep's valid candidates that tests run and `ktune compile
// --sample` compiles. Every value of every tunable must be in it, whatever the limit.
#include <gtest/gtest.h>

#include <set>

#include "space/spread.hpp"

namespace ktune {
namespace {

// A 4 x 3 x 5 grid of tunables in enumeration order (the last varies fastest).
std::vector<Bindings> grid() {
  std::vector<Bindings> out;
  for (int64_t a : {1, 2, 4, 8})
    for (int64_t b : {16, 32, 64})
      for (int64_t c : {0, 1, 2, 3, 4}) out.push_back({{"A", a}, {"B", b}, {"C", c}});
  return out;
}

void expect_every_value(const std::vector<Bindings>& all, const std::vector<size_t>& picks) {
  std::map<std::string, std::set<int64_t>> want, got;
  for (const Bindings& b : all)
    for (const auto& [k, v] : b) want[k].insert(v);
  for (size_t i : picks)
    for (const auto& [k, v] : all.at(i)) got[k].insert(v);
  EXPECT_EQ(got, want);
}

TEST(SpreadPicks, EveryValueOfEveryTunableIsPickedInOrderWithoutRepeats) {
  const std::vector<Bindings> all = grid();
  const std::vector<size_t> picks = spread_picks(all);
  expect_every_value(all, picks);
  EXPECT_TRUE(std::is_sorted(picks.begin(), picks.end()));
  EXPECT_EQ(std::set<size_t>(picks.begin(), picks.end()).size(), picks.size());
  EXPECT_LT(picks.size(), all.size());
  EXPECT_EQ(picks.front(), 0u);
  EXPECT_EQ(picks.back(), all.size() - 1);
}

TEST(SpreadPicks, ALimitFillsUpToItButNeverDropsAValue) {
  const std::vector<Bindings> all = grid();
  const size_t spread = spread_picks(all).size();
  EXPECT_EQ(spread_picks(all, 40).size(), 40u);
  expect_every_value(all, spread_picks(all, 40));
  EXPECT_EQ(spread_picks(all, 1000).size(), all.size());
  EXPECT_EQ(spread_picks(all, 2).size(), spread);  // below the value picks: they are kept
}

TEST(SpreadPicks, NothingValidGivesNoPicks) {
  EXPECT_TRUE(spread_picks({}).empty());
  EXPECT_TRUE(spread_picks({}, 10).empty());
}

}  // namespace
}  // namespace ktune

// cover_picks: what `ktune compile --quick` compiles of each problem.
namespace ktune {
namespace {

TEST(CoverPicks, EveryValueOnceAcrossProblemsAndOnePickForAProblemWithNothingNew) {
  const std::vector<Bindings> all = grid();
  CoveredValues covered;
  const std::vector<size_t> first = cover_picks(all, covered);
  expect_every_value(all, first);
  EXPECT_TRUE(std::is_sorted(first.begin(), first.end()));
  EXPECT_LE(first.size(), 5u);  // C's five values: each pick adds one, and A and B ride along
  // A second problem with the same values compiles one candidate: its own sizes still compile.
  const std::vector<size_t> second = cover_picks(all, covered);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second.front(), all.size() / 2);
  // A problem whose candidates bring a new value compiles the one that has it, nothing else.
  std::vector<Bindings> wider = all;
  wider.push_back({{"A", 16}, {"B", 16}, {"C", 0}});
  EXPECT_EQ(cover_picks(wider, covered), std::vector<size_t>{all.size()});
  EXPECT_TRUE(cover_picks({}, covered).empty());
}

}  // namespace
}  // namespace ktune
