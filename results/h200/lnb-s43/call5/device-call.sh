#!/usr/bin/env bash
# Session 43, call 5: stage 2 reading a quad's partials as whole 16-byte chunks (Q, the working
# tree's kernel, embedded) against 7d521d0's kernel (P, ab/prev). The backward's GPU tests; ncu
# durations of the pinned 4000 x 5001 fp16 config (ab/pin.json, L2_AHEAD 0: second in N's searches) at 264 and 4000 rows;
# events of the same in turns; each kernel's default search over ab/lnb-suite.json, P then Q.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for r in 4000 264; do
  for v in P Q; do
    k=(); [[ $v == P ]] && k=(--kernel ab/prev/kernels/layernorm_backward.cu)
    timeout 60 ncu --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg \
      --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 --csv --page raw \
      ./build/ktune bench ab/one$r.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c5-$v-$r --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out $o/b --stem $v-$r --no-progress > $o/ncu-$v-$r.csv 2> $o/ncu-$v-$r.err
    echo "ncu $v $r: exit $?" >> $o/summary.txt
  done
done
for t in 1 2; do
  for v in P Q; do
    k=(); [[ $v == P ]] && k=(--kernel ab/prev/kernels/layernorm_backward.cu)
    timeout 60 ./build/ktune bench ab/one4000.json --config ab/pin.json "${k[@]}" --cache-dir /tmp/c5e-$v-$t --out $o/e --stem $v-$t --no-progress > $o/ev-$v-$t.log 2>&1
    echo "events $v $t: exit $? $(grep -E '^  ktune' $o/ev-$v-$t.log)" >> $o/summary.txt
  done
done
BUDGET_S=560 TURN_S=150 ROUNDS=1 scripts/experiments/config-ab.sh $o/ab ab/lnb-suite.json P=ab/prev/lnb.json Q=configs/layernorm_backward.json
cat $o/ab/summary.txt >> $o/summary.txt
tar -czf $OUT/c5.tgz -C $OUT c5
