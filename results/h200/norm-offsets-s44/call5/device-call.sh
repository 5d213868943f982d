#!/usr/bin/env bash
# Session 44, call 5, on e48fa0d's binary (the parameter loads through for_param_vecs): (1) the
# norms' GPU tests and planted faults; (2) one pinned configuration (RT=256 VB=16) at 2000 x 12289
# fp16, 518a021's kernel (A, ab/aold2) and e48fa0d's (N, embedded) in turns A N A N: events, then
# ncu's durations of 5 launches each.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c5; mkdir -p $o/pin
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*:PlantedFaults.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for turn in A1 N1 A2 N2; do
  cfg=ab/pins/ln12289-pin.json; [[ $turn == A* ]] && cfg=ab/aold2/ln12289-pin.json
  timeout 40 ./build/ktune bench ab/pins/ln12289.json --config $cfg --cache-dir /tmp/pin-$turn --out /tmp/pin-out --stem $turn --no-progress > $o/pin/ev-$turn.log 2>&1
  echo "events $turn: exit $? $(grep -E '^  ktune' $o/pin/ev-$turn.log)" >> $o/summary.txt
done
for turn in A N; do
  cfg=ab/pins/ln12289-pin.json; [[ $turn == A ]] && cfg=ab/aold2/ln12289-pin.json
  timeout 60 ncu --target-processes all --metrics gpu__time_duration.sum --clock-control none --cache-control all -k 'regex:^ktune_norm_rows' --launch-count 5 --csv --page raw \
    ./build/ktune bench ab/pins/ln12289.json --config $cfg --cache-dir /tmp/pin-${turn}1 --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/pin-ncu --stem $turn --no-progress > $o/pin/ncu-$turn.csv 2> $o/pin/ncu-$turn.err
  echo "ncu $turn: exit $?" >> $o/summary.txt
done
gzip -f $o/*/*/*.tuning.csv $o/*/*/*.json $o/fwd/logs/*.log 2>/dev/null; rm -f $o/*/*/*.tuning.json.gz
tar -czf $OUT/c5.tgz -C $OUT c5
