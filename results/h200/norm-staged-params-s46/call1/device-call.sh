#!/usr/bin/env bash
# Session 46, call 1: LayerNorm/RMSNorm's persistent grid with w and b staged in shared memory
# (N: the working tree's kernel and configs, BLOCKS_PER_SM) against HEAD's kernel and configs
# (A: ab/aold, kernels/ beside the configs). (1) the norm GPU tests and planted faults; (2) turns
# A N A N of the default search from empty caches over ab/ln-suite.json and ab/rms-suite.json;
# (3) ncu durations of each turn-1 winner at LayerNorm 4096 x 5001 fp16 and 16384 x 2047 bf16.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c1; mkdir -p $o/ncu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 170 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*:PlantedFaults.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
BUDGET_S=250 TURN_S=62 scripts/experiments/config-ab.sh $o/ln ab/ln-suite.json A=ab/aold/layernorm.json N=configs/layernorm.json
echo "ln ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/ln/summary.txt >> $o/summary.txt
t0=$SECONDS
BUDGET_S=95 TURN_S=25 scripts/experiments/config-ab.sh $o/rms ab/rms-suite.json A=ab/aold/rmsnorm.json N=configs/rmsnorm.json
echo "rms ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/rms/summary.txt >> $o/summary.txt
for prob in 5001 2047; do
  for turn in A N; do
    cfg=configs/layernorm.json; [[ $turn == A ]] && cfg=ab/aold/layernorm.json
    left=$((585 - SECONDS)); (( left < 20 )) && break 2
    timeout $left ncu --target-processes all --metrics gpu__time_duration.sum --clock-control none --cache-control all -k 'regex:^ktune_norm' --launch-count 6 --csv --page raw \
      ./build/ktune bench ab/ln-$prob.json --config $cfg --cache-dir /tmp/config-ab-${turn}1 --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
      --out /tmp/ncu-out --stem $turn$prob --no-progress > $o/ncu/ncu-$turn-$prob.csv 2> $o/ncu/ncu-$turn-$prob.err
    echo "ncu $turn $prob: exit $? at $SECONDS s" >> $o/summary.txt
  done
done
tar -czf $OUT/c1.tgz -C $OUT c1
