#!/usr/bin/env bash
# Session 43, call 6: stage 2's atomics spread over the quads by block (v13: block b starts its
# stripe's quads 32 b threads on, so the blocks that finish together do not add into the same
# addresses at once), and v14 (v13 with acq_rel fences and the arrival's own acquire), against
# 7d521d0's kernel (v0, embedded): ncu durations of the pinned 4000 x 5001 fp16 config at 264 and
# 4000 rows, then events in turns.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c6; mkdir -p $o
for r in 4000 264; do
  for v in v0 v13 v14; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg \
      --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 --csv --page raw \
      ./build/ktune bench ab/one$r.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c6-$v-$r --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out $o/b --stem $v-$r --no-progress > $o/ncu-$v-$r.csv 2> $o/ncu-$v-$r.err
    echo "ncu $v $r: exit $?" >> $o/summary.txt
  done
done
for t in 1 2; do
  for v in v0 v13 v14; do
    k=(); [[ $v != v0 ]] && k=(--kernel ab/$v/kernels/layernorm_backward.cu)
    timeout 60 ./build/ktune bench ab/one4000.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c6e-$v-$t --out $o/e --stem $v-$t --no-progress > $o/ev-$v-$t.log 2>&1
    echo "events $v $t: exit $? $(grep -E '^  ktune' $o/ev-$v-$t.log)" >> $o/summary.txt
  done
done
tar -czf $OUT/c6.tgz -C $OUT c6
