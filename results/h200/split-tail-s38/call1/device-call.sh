#!/usr/bin/env bash
# Session 38, call 1: gemm_wgmma's split tail (STREAM_K 3). The new GPU test; then
# ab/tail-suite.json from empty caches with HEAD's gemm_wgmma config (A: no STREAM_K 3) and the
# new one (N), the same binary, in the order A N A N (as time allows).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/tail; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaSplitTail*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
run() {  # NAME CONFIG LIMIT
  local t0=$SECONDS left=$((580 - SECONDS))
  [[ $left -lt 40 ]] && { echo "$1: skipped, $left s left" >> $o/summary.txt; return; }
  timeout $(( $3 < left ? $3 : left )) ./build/ktune bench ab/tail-suite.json --config $2 --cache-dir /tmp/c-$1 --out $o/$1 --stem bench-$1 --no-progress > $o/$1.log 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
}
run A1 ab/wgmma-old.json 200
run N1 configs/gemm_wgmma.json 220
run A2 ab/wgmma-old.json 200
run N2 configs/gemm_wgmma.json 220
gzip -f $o/*/*.tuning.csv $o/*/*.json 2>/dev/null; rm -f $o/*/*.tuning.json.gz
tar -czf $OUT/tail.tgz -C $OUT tail
