// The table export, lookup and --no-tune hand out (cli/current_winners.hpp): a winner cached before
// its config gained a tunable comes back with the kernel name and launch today's config builds
// from its parameters; what no built-in config rebuilds keeps what it stored, with a note.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/current_winners.hpp"

namespace ktune {
namespace {

// The 1536^3 fp16 winner on an H100, as a cache written before gemm_wgmma's STREAM_K stored it:
// its parameters lack the tunable, and its kernel name has one template argument fewer.
CacheEntry cached_before_stream_k() {
  CacheEntry e;
  e.key.family = "gemm";
  e.key.config_name = "gemm_mma+gemm_wgmma+gemm_gemv+gemm_dot";
  e.key.dtype = "fp16";
  e.key.options = {{"layout", "rr"}};
  e.key.dims = {{"M", 1536}, {"N", 1536}, {"K", 1536}};
  e.key.gpu_name = "NVIDIA H100 80GB HBM3";
  e.key.cc_major = 9;
  e.key.cc_minor = 0;
  e.key.sm_count = 132;
  e.winner_config = "gemm_wgmma";
  e.params = {{"BLOCKS_PER_SM", 1}, {"BLOCK_K", 64},  {"BLOCK_M", 128},      {"BLOCK_N", 256},
              {"CLUSTER_M", 1},     {"EPILOGUE", 2},  {"GROUP_M", 16},       {"NUM_CONSUMERS", 2},
              {"NUM_STAGES", 4},    {"SPLIT_K", 1}};
  e.kernel_name = "ktune_gemm_wgmma<__half, __half, 1, 1, 128, 256, 64, 4, 2, 16, 1, 1, 2, 1>";
  e.launch.grid[0] = 1;  // stale on purpose: the rebuilt launch must replace it
  e.median_ms = 0.0224;
  return e;
}

TEST(CurrentWinners, AnEntryFromBeforeANewTunableGetsTodaysKernelNameAndLaunch) {
  std::vector<std::string> notes;
  const std::vector<CacheEntry> out = cli::current_winners({cached_before_stream_k()}, notes);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(notes.empty()) << notes.front();
  // STREAM_K and PINGPONG at their first values (0), the kernel as it ran (BLOCK_SCALED 0: per-tensor scales).
  EXPECT_EQ(out[0].kernel_name, "ktune_gemm_wgmma<__half, __half, 1, 1, 128, 256, 64, 4, 2, 16, 1, 1, 2, 1, 0, 0, 0>");
  // 12 x 6 tiles of 128x256, each its own CTA of the persistent grid (fewer than 132 SMs).
  EXPECT_EQ(out[0].launch.grid[0], 72);
  EXPECT_EQ(out[0].launch.block[0], 384);
  EXPECT_GT(out[0].launch.shared_bytes, 0);
  EXPECT_EQ(out[0].launch.tensor_maps.size(), 3u);
  // What the entry measured is its own, untouched.
  EXPECT_EQ(out[0].params.count("STREAM_K"), 0u);
  EXPECT_DOUBLE_EQ(out[0].median_ms, 0.0224);
}

TEST(CurrentWinners, WhatNoBuiltInConfigRebuildsKeepsItsStoredNameWithANote) {
  CacheEntry users = cached_before_stream_k();
  users.winner_config = "my_gemm";  // a user's sweep (ktune sweep FILE)
  CacheEntry unknown_gpu = cached_before_stream_k();
  unknown_gpu.key.cc_major = 7;
  CacheEntry ruled_out = cached_before_stream_k();
  ruled_out.params["BLOCK_K"] = 48;  // no longer one 128-byte swizzle row
  std::vector<std::string> notes;
  const std::vector<CacheEntry> out = cli::current_winners({users, unknown_gpu, ruled_out}, notes);
  ASSERT_EQ(out.size(), 3u);
  for (const CacheEntry& e : out) EXPECT_EQ(e.kernel_name, users.kernel_name);
  ASSERT_EQ(notes.size(), 3u);
  EXPECT_NE(notes[0].find("my_gemm is not a built-in config"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("7.0 is not known"), std::string::npos) << notes[1];
  EXPECT_NE(notes[2].find("rules its parameters out"), std::string::npos) << notes[2];
}

}  // namespace
}  // namespace ktune
