#!/usr/bin/env bash
# LayerNorm backward's trial of up to 48 packed columns a thread (ROW_THREADS 128 at 5001 columns;
# `PER * V <= 48` in configs/layernorm_backward.json, since reverted:
# results/h100/layernorm-backward-wide-tried/), in one device call: suites/limits.json's four backward problems tuned from an empty cache against
# the copy roof with PyTorch beside them (scripts/limits-gpu.sh), the exhaustive sweep at
# 4000 x 5001, and the backward's GPU tests on ragged shapes. Writes OUTDIR/lnbw.
#   scripts/experiments/layernorm-backward-wide-gpu.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/layernorm-backward-wide-gpu.sh OUTDIR}/lnbw
mkdir -p "$o"
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*:MemoryBoundGpu.SoftmaxMatches*' \
  --gtest_brief=1 > "$o/gpu-tests.log" 2>&1
echo "gpu tests: $?" | tee -a "$o/summary.txt"
python3 scripts/suite_part.py suites/limits.json /tmp/lnbw.json --name limits-lnb --family layernorm_backward
timeout 200 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/lnbw.json
KTUNE_CACHE_DIR=/tmp/lnbw-ex timeout 80 ./build/ktune layernorm_backward --rows 4000 --cols 5001 --dtype fp16 \
  --exhaustive --retune --top 25 --out "$o" --no-progress > "$o/exhaustive-4000x5001.log" 2>&1
echo "exhaustive 4000 x 5001: $?" | tee -a "$o/summary.txt"
