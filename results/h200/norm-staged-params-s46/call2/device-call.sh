#!/usr/bin/env bash
# Session 46, call 2: the register norm kernel's L2 prefetch of the row L2_AHEAD waves on (N: the
# working tree's kernel and configs) against HEAD's (A: ab/aold). (1) the norm GPU tests and planted
# faults; (2) pinned LayerNorm winners with L2_AHEAD 0 / 8 (/ 16) in turns, events then ncu;
# (3) turns A N A N of the default search from empty caches over ab/ln-two.json.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o/pin $o/ncu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*:PlantedFaults.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
pins=(5001:0 5001:8 2047:0 2047:8 2047:16)
for round in 1 2; do
  for p in "${pins[@]}"; do
    prob=${p%%:*} la=${p##*:}
    timeout 40 ./build/ktune bench ab/ln-$prob.json --config ab/pin$prob-la$la.json --cache-dir /tmp/pin-$prob-$la --out /tmp/pin-out --stem p$prob-$la-$round --no-progress > $o/pin/ev-$prob-la$la-$round.log 2>&1
    echo "events $prob la$la round $round: exit $? $(grep -E '^  (ktune|copy)' $o/pin/ev-$prob-la$la-$round.log | awk '{print $1, $2}' | tr '\n' ' ')" >> $o/summary.txt
  done
done
for p in "${pins[@]}"; do
  prob=${p%%:*} la=${p##*:}
  timeout 40 ncu --target-processes all --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed --clock-control none --cache-control all -k 'regex:^ktune_norm' --launch-count 6 --csv --page raw \
    ./build/ktune bench ab/ln-$prob.json --config ab/pin$prob-la$la.json --cache-dir /tmp/pin-$prob-$la --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/ncu-out --stem n$prob-$la --no-progress > $o/ncu/ncu-$prob-la$la.csv 2> $o/ncu/ncu-$prob-la$la.err
  echo "ncu $prob la$la: exit $? at $SECONDS s" >> $o/summary.txt
done
t0=$SECONDS
BUDGET_S=$((580 - SECONDS)) TURN_S=70 scripts/experiments/config-ab.sh $o/ln ab/ln-two.json A=ab/aold/layernorm.json N=configs/layernorm.json
echo "ln ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/ln/summary.txt >> $o/summary.txt
tar -czf $OUT/c2.tgz -C $OUT c2
