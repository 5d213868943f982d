#!/usr/bin/env bash
# Session 43, call 8: v15 (the last round's dx stored after stage 2, so that stage 2's fences do not
# wait for them; its pinned config spills 184 bytes, run with --allow-spills) against 7d521d0's
# kernel (v0): ncu durations at 264 and 4000 rows, events at 4000 rows.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c8; mkdir -p $o
for r in 264 4000; do
  for v in v0 v15; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 30 ncu --metrics gpu__time_duration.sum --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 --csv --page raw \
      ./build/ktune bench ab/one$r.json --config ab/pin.json "${k[@]}" --allow-spills --cache-dir /tmp/c8-$v-$r --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out $o/b --stem $v-$r --no-progress > $o/ncu-$v-$r.csv 2> $o/ncu-$v-$r.err
    echo "ncu $v $r: exit $?" >> $o/summary.txt
  done
done
for v in v0 v15; do
  k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
  timeout 30 ./build/ktune bench ab/one4000.json --config ab/pin.json "${k[@]}" --allow-spills --cache-dir /tmp/c8e-$v --out $o/e --stem $v --no-progress > $o/ev-$v.log 2>&1
  echo "events $v: exit $? $(grep -E '^  ktune' $o/ev-$v.log)" >> $o/summary.txt
done
rm -rf $o/b $o/e
tar -czf $OUT/c8.tgz -C $OUT c8
