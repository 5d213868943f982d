#!/usr/bin/env bash
# Session 37, call 3: LayerNorm backward's L2_AHEAD (bulk prefetch of a group's row L2_AHEAD rounds
# ahead into L2). The backward's GPU tests with the new built-in config; then ab/lnb-suite.json
# from empty caches with the config of 4023ee0 (A: no L2_AHEAD, the kernel's default 0) and the new
# built-in one (N), same binary, in the order A N, ncu of both winners at 4000 x 5001, A N again.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/l2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
run() {  # NAME CONFIG LIMIT
  local t0=$SECONDS left=$((575 - SECONDS))
  [[ $left -lt 40 ]] && { echo "$1: skipped, $left s left" >> $o/summary.txt; return; }
  timeout $(( $3 < left ? $3 : left )) ./build/ktune bench ab/lnb-suite.json --config $2 --cache-dir /tmp/c-$1 --out $o/$1 --stem bench-$1 --no-progress > $o/$1.log 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
}
ncu_pair() {
  for dt in fp16 bf16; do
    printf '{"name": "lnb-%s", "problems": [{"family": "layernorm_backward", "rows": 4000, "cols": 5001, "dtype": "%s"}]}\n' $dt $dt > /tmp/one-$dt.json
    for v in A1:ab/lnb-old.json N1:configs/layernorm_backward.json; do
      n=${v%%:*}; c=${v#*:}
      [[ $((575 - SECONDS)) -lt 30 ]] && break
      timeout 25 ncu --set basic --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 3 \
        ./build/ktune bench /tmp/one-$dt.json --config $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
        --out $o/ncu --stem ncu-$n-$dt --no-progress > $o/ncu-$n-$dt.txt 2>&1
      echo "ncu $n $dt: exit $? ($(grep -E '^ +Duration' $o/ncu-$n-$dt.txt | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
    done
  done
}
run A1 ab/lnb-old.json 100
run N1 configs/layernorm_backward.json 170
ncu_pair
run A2 ab/lnb-old.json 100
run N2 configs/layernorm_backward.json 170
gzip -f $o/*/*.tuning.csv $o/*/*.json 2>/dev/null; rm -f $o/*/*.tuning.json.gz
tar -czf $OUT/l2.tgz -C $OUT l2
