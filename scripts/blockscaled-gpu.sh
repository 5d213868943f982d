#!/usr/bin/env bash
# Issue 41's block-scaled FP8 GEMMs on the GPU: suites/blockscaled.json (optionally only the
# problems with M in [MIN, MAX]) through scripts/large-gpu.sh: benched from an empty cache against
# cuBLASLt's block-scaled matmul, then torch._scaled_mm with the same block scales under do_bench
# (the independent timer) in the same call; KTUNE_NCU_PICKS="i j" adds ncu's kernel durations
# (NCU_SET basic) for those problems' winners and cuBLASLt's kernels.
#   scripts/blockscaled-gpu.sh OUTDIR [MIN [MAX [KTUNE]]]
set -uo pipefail
out=${1:?usage: scripts/blockscaled-gpu.sh OUTDIR [MIN [MAX [KTUNE]]]}
cd "$(dirname "$0")/.."
KTUNE_SUITE=suites/blockscaled.json KTUNE_PART_NAME=blockscaled NCU_SET=${NCU_SET:-basic} \
  exec scripts/large-gpu.sh "$out" fp8 "${2:-0}" "${3:-1000000}" "${4:-./build/ktune}"
