#!/usr/bin/env bash
# Session 45, call 2: param_offsets for 16-byte vectors only (N, embedded: eight 16-bit elements as
# before, and now four fp32) against HEAD's eight-or-more elements (A, ab/aold's kernel beside copies
# of the rows configs). (1) norm GPU tests and planted faults; (2) the pinned LayerNorm RT=256 VB=16 at
# 4096 x 5001 fp32, events A N A N, then ncu; (3) LayerNorm and RMSNorm fp32 odd row lengths (and
# LayerNorm 16384 x 2047 bf16, unchanged code, as a control), turns A N A N, default search from
# empty caches.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o/pin
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*:PlantedFaults.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for turn in A1 N1 A2 N2; do
  cfg=ab/pins/layernorm-vb16-rt256.json; [[ $turn == A* ]] && cfg=ab/aold/layernorm-vb16-rt256.json
  timeout 40 ./build/ktune bench ab/pins/layernorm5001-fp32.json --config $cfg --cache-dir /tmp/pin-$turn --out /tmp/pin-out --stem $turn --no-progress > $o/pin/ev-$turn.log 2>&1
  echo "events $turn: exit $? $(grep -E '^  ktune' $o/pin/ev-$turn.log)" >> $o/summary.txt
done
for turn in A N; do
  cfg=ab/pins/layernorm-vb16-rt256.json; [[ $turn == A ]] && cfg=ab/aold/layernorm-vb16-rt256.json
  timeout 60 ncu --target-processes all --metrics gpu__time_duration.sum --clock-control none --cache-control all -k 'regex:^ktune_norm_rows' --launch-count 5 --csv --page raw \
    ./build/ktune bench ab/pins/layernorm5001-fp32.json --config $cfg --cache-dir /tmp/pin-${turn}1 --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/pin-ncu --stem $turn --no-progress > $o/pin/ncu-$turn.csv 2> $o/pin/ncu-$turn.err
  echo "ncu $turn: exit $?" >> $o/summary.txt
done
t0=$SECONDS
BUDGET_S=$((575 - SECONDS - 130)) TURN_S=60 scripts/experiments/config-ab.sh $o/ln ab/ln32-suite.json A=ab/aold/layernorm.json N=configs/layernorm.json
echo "ln ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/ln/summary.txt >> $o/summary.txt
t0=$SECONDS
BUDGET_S=$((565 - SECONDS)) TURN_S=32 scripts/experiments/config-ab.sh $o/rms ab/rms32-suite.json A=ab/aold/rmsnorm.json N=configs/rmsnorm.json
echo "rms ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/rms/summary.txt >> $o/summary.txt
tar -czf $OUT/c2.tgz -C $OUT c2
