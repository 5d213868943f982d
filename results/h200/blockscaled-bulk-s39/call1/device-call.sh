#!/usr/bin/env bash
# Session 39, call 1: block-scaled fp8 at M = 4096, the scales by the TMA thread's bulk copies (N,
# kernels/ of the working tree) and with the promotion before the wait for the next stage (V),
# against HEAD's kernel and config (A), each tuned by the default search from an empty cache;
# then the block-scaled GPU test on the working tree's kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
out=$OUT/s39-1
mkdir -p "$out"
nvidia-smi > "$out/gpu.txt" 2>&1
t0=$SECONDS
ROUNDS=1 BUDGET_S=400 TURN_S=140 scripts/experiments/config-ab.sh "$out/ab" ab/bs-big.json \
  A=ab/old/gemm_wgmma.json N=configs/gemm_wgmma.json V=ab/v1/gemm_wgmma.json
echo "ab: $((SECONDS - t0)) s" >> "$out/summary.txt"
t0=$SECONDS
timeout 170 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*' > "$out/gpu-test.txt" 2>&1
echo "gpu test: exit $? in $((SECONDS - t0)) s" >> "$out/summary.txt"
tar czf "$OUT/s39-1.tgz" -C "$OUT" s39-1
