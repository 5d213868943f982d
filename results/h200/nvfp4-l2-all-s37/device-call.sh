#!/usr/bin/env bash
# Session 37, call 5: NVFP4 decode with L2_ALL (each block's whole share of W and its scales asked
# into L2 by bulk prefetches as it starts). The nvfp4 GPU test with the new built-in config (L2_ALL
# 0 and 1); then ab/nv4.json (M = 1 at three weights, 8 x 4096 x 14336) from empty caches with the
# config of HEAD (A: no L2_ALL) and the same config with L2_ALL forced to 1 (N), same binary, the
# default guided search, A N; ncu of both winners at two problems; A N again while time is left.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/nv; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
LIMIT=320
t0=$SECONDS
timeout 100 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4WeightsEveryCandidateAndMisreadFormatsRejected' > $o/gpu-tests.txt 2>&1
echo "gpu test: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
run() {  # NAME CONFIG
  local t0=$SECONDS left=$((LIMIT - SECONDS))
  [[ $left -lt 50 ]] && { echo "$1: skipped, $left s left" >> $o/summary.txt; return; }
  timeout $(( 70 < left ? 70 : left )) ./build/ktune bench ab/nv4.json --config $2 --cache-dir /tmp/c-$1 --out $o/$1 --stem bench-$1 --no-progress > $o/$1.log 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
}
run A1 ab/nv-old.json
run N1 ab/nv-l2.json
for p in "4096 14336" "14336 4096"; do
  set -- $p
  printf '{"name": "one", "problems": [{"family": "gemm_nvfp4", "M": 1, "N": %s, "K": %s, "dtype": "bf16"}]}\n' $1 $2 > /tmp/one.json
  for v in A1:ab/nv-old.json N1:ab/nv-l2.json; do
    n=${v%%:*}; c=${v#*:}
    [[ $((LIMIT - SECONDS)) -lt 20 ]] && break
    timeout 25 ncu --set basic --clock-control none --cache-control all -k 'regex:^ktune_gemv_nvfp4' --launch-count 5 \
      ./build/ktune bench /tmp/one.json --config $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 4 --rounds 1 --warmup-ms 1 \
      --out $o/ncu --stem ncu-$n-$1x$2 --no-progress > $o/ncu-$n-1x$1x$2.txt 2>&1
    echo "ncu $n 1x$1x$2: exit $? ($(grep -E '^ +Duration' $o/ncu-$n-1x$1x$2.txt | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
  done
done
run A2 ab/nv-old.json
run N2 ab/nv-l2.json
rm -f $o/*/*.tuning.json $o/ncu/*.json $o/ncu/*.csv
gzip -f $o/*/*.tuning.csv $o/*/*.json 2>/dev/null
tar -czf $OUT/nv.tgz -C $OUT nv
