#!/usr/bin/env bash
# Session 39, call 4: the final kernel and config (F: bulk scale copies by the TMA thread where
# M > 128 and M % 4 == 0, warp 1's cp.async elsewhere; the promotion before the wait for the next
# stage): the block-scaled GPU test, then the same configurations as HEAD's kernel and config (A)
# over all of suites/blockscaled.json, session 22's winners and call 2's (4096 x 7168 x 2048,
# which call 2 did not reach, tuned), each against cuBLASLt in its own rounds, in turns A F; then
# torch._scaled_mm under do_bench on F's second results.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
out=$OUT/s39-4
mkdir -p "$out"
nvidia-smi > "$out/gpu.txt" 2>&1
say() { echo "$*" >> "$out/summary.txt"; }
t0=$SECONDS
timeout 160 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*' > "$out/gpu-test.txt" 2>&1
say "gpu test: exit $? in $((SECONDS - t0)) s"
turn() {  # NAME CONFIG WINNERS
  local t0=$SECONDS
  timeout 90 ./build/ktune bench ab/bs-all.json --config "$2" --configs-from "$3" --cache-dir "/tmp/c-$1" \
    --out "$out/$1" --stem "bench-$1" --no-progress > "$out/$1.log" 2>&1
  say "$1: exit $? in $((SECONDS - t0)) s"
}
turn A-old ab/old/gemm_wgmma.json ab/old-winners.json
turn F-old configs/gemm_wgmma.json ab/old-winners.json
turn A-new ab/old/gemm_wgmma.json ab/new-winners.json
turn F-new configs/gemm_wgmma.json ab/new-winners.json
t0=$SECONDS
timeout 40 python3 scripts/torch_gemm_check.py "$out/F-new/bench-F-new.json" --json "$out/torch-F-new.json" > "$out/torch-F-new.log" 2>&1
say "torch: exit $? in $((SECONDS - t0)) s"
gzip -f "$out"/*/bench-*.json "$out"/*/*.tuning.csv 2>/dev/null
rm -f "$out"/*/*.tuning.json
tar czf "$OUT/s39-4.tgz" -C "$OUT" s39-4
