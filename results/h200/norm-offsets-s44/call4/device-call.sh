#!/usr/bin/env bash
# Session 44, call 4, on the working tree's binary (the norms' w and b shifted by a compile-time
# offset): (1) the norms' GPU tests and planted faults; (2) one pinned configuration (RT=256 VB=16)
# at 2000 x 12289 fp16, HEAD's kernel (A, ab/aold) and the new one (N, embedded) in turns A N A N:
# events, then ncu's durations of 5 launches each; (3) suites/limits.json's 18 forward problems
# with scripts/limits-gpu.sh (PyTorch eager and torch.compile in the same call).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c4; mkdir -p $o/pin
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*:PlantedFaults.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for turn in A1 N1 A2 N2; do
  cfg=ab/pins/ln12289-pin.json; [[ $turn == A* ]] && cfg=ab/aold/ln12289-pin.json
  timeout 40 ./build/ktune bench ab/pins/ln12289.json --config $cfg --cache-dir /tmp/pin-$turn --out /tmp/pin-out --stem $turn --no-progress > $o/pin/ev-$turn.log 2>&1
  echo "events $turn: exit $? $(grep -E '^  ktune' $o/pin/ev-$turn.log)" >> $o/summary.txt
done
for turn in A N; do
  cfg=ab/pins/ln12289-pin.json; [[ $turn == A ]] && cfg=ab/aold/ln12289-pin.json
  timeout 60 ncu --target-processes all --metrics gpu__time_duration.sum --clock-control none --cache-control all -k 'regex:^ktune_norm_rows' --launch-count 5 --csv --page raw \
    ./build/ktune bench ab/pins/ln12289.json --config $cfg --cache-dir /tmp/pin-${turn}1 --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/pin-ncu --stem $turn --no-progress > $o/pin/ncu-$turn.csv 2> $o/pin/ncu-$turn.err
  echo "ncu $turn: exit $?" >> $o/summary.txt
done
KTUNE_CACHE_DIR=/tmp/c4 timeout 330 scripts/limits-gpu.sh $o/fwd ./build/ktune ab/limits-forward.json >> $o/summary.txt 2>&1
echo "limits-gpu: exit $? at $SECONDS s" >> $o/summary.txt
gzip -f $o/*/*/*.tuning.csv $o/*/*/*.json $o/fwd/logs/*.log 2>/dev/null; rm -f $o/*/*/*.tuning.json.gz
tar -czf $OUT/c4.tgz -C $OUT c4
