#!/usr/bin/env bash
# Session 39, call 2: the committed-to-be kernel (bulk scale copies, promotion before the wait for
# the next stage): the block-scaled GPU test, then suites/blockscaled.json from an empty cache
# against cuBLASLt with torch._scaled_mm under do_bench and ncu of two M = 4096 problems.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
out=$OUT/s39-2
mkdir -p "$out"
nvidia-smi > "$out/gpu.txt" 2>&1
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*' > "$out/gpu-test.txt" 2>&1
echo "gpu test: exit $? in $((SECONDS - t0)) s" >> "$out/summary.txt"
t0=$SECONDS
KTUNE_NCU_PICKS="15 16" timeout 420 scripts/blockscaled-gpu.sh "$out/suite" > "$out/suite.log" 2>&1
echo "suite: exit $? in $((SECONDS - t0)) s" >> "$out/summary.txt"
gzip -f "$out"/suite/*.tuning.csv "$out"/suite/bench-*.json 2>/dev/null
rm -f "$out"/suite/*.tuning.json "$out"/suite/*.ncu-rep
tar czf "$OUT/s39-2.tgz" -C "$OUT" s39-2
