#!/usr/bin/env bash
# Session 43, call 2: where LayerNorm backward's fixed cost goes at 4000 x 5001 fp16. ncu kernel
# durations of the pinned config (ab/pin.json, L2_AHEAD 0: second in N's searches) for four kernels: v0 the working tree's, v1
# without stage 2 (wrong dW/dB: fails verification, profiled anyway), v3 one thread's fence before
# the arrivals, v4 stage 2 without its atomics (wrong dW/dB); at 4000 and 264 rows.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o
for r in 4000 264; do
  for v in v0 v1 v3 v4; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_elapsed.avg.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed \
      --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 --csv --page raw \
      ./build/ktune bench ab/one$r.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c2-$v-$r --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out $o/b --stem $v-$r --no-progress > $o/ncu-$v-$r.csv 2> $o/ncu-$v-$r.err
    echo "$v $r: exit $?" >> $o/summary.txt
  done
done
# events of the v3 kernel (it verifies) against v0, in turns
for t in 1 2; do
  for v in v0 v3; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ./build/ktune bench ab/one4000.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c2e-$v-$t --out $o/e --stem $v-$t --no-progress > $o/ev-$v-$t.log 2>&1
    echo "events $v $t: exit $? $(grep -E '^  ktune' $o/ev-$v-$t.log)" >> $o/summary.txt
  done
done
tar -czf $OUT/c2.tgz -C $OUT c2
