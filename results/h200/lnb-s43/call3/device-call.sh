#!/usr/bin/env bash
# Session 43, call 3: LayerNorm backward's stage 2 at 4000 x 5001 fp16 and 264 rows, pinned config:
# ncu durations of v0 (working tree), v5 (acq_rel fences for __threadfence's sc), v9 (v5 with the
# arrival's own acquire and no second fence), v11 (v4 without fence, arrivals and final: wrong),
# then events of v0, v5, v9 in turns.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o
for r in 4000 264; do
  for v in v0 v5 v9 v11; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 --csv --page raw \
      ./build/ktune bench ab/one$r.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c3-$v-$r --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out $o/b --stem $v-$r --no-progress > $o/ncu-$v-$r.csv 2> $o/ncu-$v-$r.err
    echo "$v $r: exit $?" >> $o/summary.txt
  done
done
for t in 1 2; do
  for v in v0 v5 v9; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ./build/ktune bench ab/one4000.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c3e-$v-$t --out $o/e --stem $v-$t --no-progress > $o/ev-$v-$t.log 2>&1
    echo "events $v $t: exit $? $(grep -E '^  ktune' $o/ev-$v-$t.log)" >> $o/summary.txt
  done
done
tar -czf $OUT/c3.tgz -C $OUT c3
