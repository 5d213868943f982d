// Grouped tile order (Triton's): consecutive blocks walk GROUP_M rows of tiles column by column,
// so a wave of blocks shares panels of A and B in L2 instead of streaming whole rows of tiles.
// Shared by the GEMM kernels; NVRTC gets it as a header by name.
#pragma once

struct KtuneTile {
  int m, n;  // tile coordinates, in tiles
};

// The `tile`-th tile of a tiles_m x tiles_n grid in grouped order.
__device__ __forceinline__ KtuneTile ktune_grouped_tile(int tile, int tiles_m, int tiles_n, int group_m) {
  const int per_group = group_m * tiles_n;
  const int first_m = tile / per_group * group_m;
  const int group_rows = tiles_m - first_m < group_m ? tiles_m - first_m : group_m;
  const int in_group = tile % per_group;
  return {first_m + in_group % group_rows, in_group / group_rows};
}
