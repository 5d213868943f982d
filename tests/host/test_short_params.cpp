// The sweep table's short form of a candidate's tunables: initials, unless two tunables share
// them, which would show one key twice ("P=2 P=64" for PIECES and PREFETCH).
#include <gtest/gtest.h>

#include "cli/common.hpp"

namespace ktune::cli {
namespace {

TEST(ShortParams, NamesGoByTheirInitials) {
  EXPECT_EQ(short_params({{"ROWS_PER_BLOCK", 16}, {"ROW_THREADS", 32}, {"VEC_BYTES", 16}}), "RPB=16 RT=32 VB=16");
}

TEST(ShortParams, NamesThatShareInitialsStayWhole) {
  EXPECT_EQ(short_params({{"BLOCK", 512}, {"CHUNKS", 8}, {"PIECES", 2}, {"PREFETCH", 64}}),
            "B=512 C=8 PIECES=2 PREFETCH=64");
}

}  // namespace
}  // namespace ktune::cli
