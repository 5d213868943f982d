#!/usr/bin/env bash
# Session 40, call 1: every GPU test on the walk that counts ruled-out combinations; then, at
# M = 64 and 128 (warp 1's scale copies), HEAD's gemm_wgmma (A) against one that waits for the
# next stage before the promotion there (W, ab/w), on the same configurations (call 2 of session
# 39's winners), in turns A W A W; PyTorch's cuBLASLt under do_bench on A2's and W2's problems.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s40-1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
say() { echo "$*" >> $o/summary.txt; }
t0=$SECONDS
timeout 260 ./build/ktune_gpu_tests > $o/gpu-tests.txt 2>&1
say "gpu tests: exit $? in $((SECONDS - t0)) s"
CONFIGS_FROM=ab/new-winners.json ROUNDS=2 TURN_S=80 BUDGET_S=$((540 - SECONDS)) \
  scripts/experiments/config-ab.sh $o/ab ab/bs-small.json A=configs/gemm_wgmma.json W=ab/w/gemm_wgmma.json
say "ab done at $SECONDS s"
for n in A2 W2; do
  [[ $((580 - SECONDS)) -lt 20 ]] && { say "torch $n: skipped"; continue; }
  f=$o/ab/$n/bench-$n.json.gz
  [[ -f $f ]] || continue
  gunzip -c $f > /tmp/$n.json
  t0=$SECONDS
  timeout 25 python3 scripts/torch_gemm_check.py /tmp/$n.json --json $o/torch-$n.json > $o/torch-$n.log 2>&1
  say "torch $n: exit $? in $((SECONDS - t0)) s"
done
tar czf $OUT/s40-1.tgz -C $OUT s40-1
