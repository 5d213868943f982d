#!/usr/bin/env bash
# Session 37: LayerNorm backward's persistent grid balanced over its rounds (ab/lnb-balanced.json:
# the same rounds of rows with as few blocks as they need, so the last round is not a few rows on
# a few SMs) against the built-in config, same binary, default guided search from empty caches,
# in the order A B A B; then ncu's kernel durations of both winners at 4000 x 5001 fp16 and bf16.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/lnb; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
run() {  # NAME CONFIG
  local t0=$SECONDS
  timeout 110 ./build/ktune bench ab/lnb-suite.json --config $2 --cache-dir /tmp/c-$1 --out $o/$1 --stem bench-$1 --no-progress > $o/$1.log 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
}
run A1 configs/layernorm_backward.json
run B1 ab/lnb-balanced.json
run A2 configs/layernorm_backward.json
run B2 ab/lnb-balanced.json
for dt in fp16 bf16; do
  printf '{"name": "lnb-%s", "problems": [{"family": "layernorm_backward", "rows": 4000, "cols": 5001, "dtype": "%s"}]}\n' $dt $dt > /tmp/one-$dt.json
  for v in A1:configs/layernorm_backward.json B1:ab/lnb-balanced.json; do
    n=${v%%:*}; c=${v#*:}
    timeout 60 ncu --set basic --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 3 \
      ./build/ktune bench /tmp/one-$dt.json --config $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
      --out $o/ncu --stem ncu-$n-$dt --no-progress > $o/ncu-$n-$dt.txt 2>&1
    echo "ncu $n $dt: exit $? ($(grep -E '^ +Duration' $o/ncu-$n-$dt.txt | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
  done
done
gzip -f $o/*/*.tuning.csv $o/*/*.tuning.json 2>/dev/null
tar -czf $OUT/lnb.tgz -C $OUT lnb
