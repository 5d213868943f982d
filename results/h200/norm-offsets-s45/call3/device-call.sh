#!/usr/bin/env bash
# Session 45, call 3 (measure only, on call 2's binary: 3534330's code): (1) fp32's 8-byte vectors under the
# compile-time offsets too (N: ab/nfp32's kernel, param_offsets also for fp32 with V >= 2, beside
# copies of the rows configs) against the embedded kernel (A), LayerNorm and RMSNorm fp32 odd row
# lengths, turns A N A N, default search from empty caches; (2) ncu sections of LayerNorm and
# RMSNorm at 16384 x 2047 bf16 with the same pinned configuration (P=0 RT=128 VB=8), to see where
# LayerNorm's extra time at odd lengths goes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o/ncu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
for fam in layernorm rmsnorm; do
  suite=ab/pins/ln2047.json; [[ $fam == rmsnorm ]] && suite=ab/pins/rms2047.json
  timeout 40 ./build/ktune bench $suite --config ab/pins/$fam-vb8-rt128.json --cache-dir /tmp/pin-$fam --out /tmp/pin-out --stem $fam --no-progress > $o/ncu/ev-$fam.log 2>&1
  echo "events $fam: exit $? $(grep -E '^  ktune' $o/ncu/ev-$fam.log)" >> $o/summary.txt
  timeout 90 ncu --target-processes all --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis -k 'regex:^ktune_norm_rows' --launch-count 1 --csv --page details \
    ./build/ktune bench $suite --config ab/pins/$fam-vb8-rt128.json --cache-dir /tmp/pin-$fam --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/pin-ncu --stem $fam --no-progress > $o/ncu/$fam.csv 2> $o/ncu/$fam.err
  echo "ncu $fam: exit $? at $SECONDS s" >> $o/summary.txt
done
t0=$SECONDS
BUDGET_S=$((400 - SECONDS - 140)) TURN_S=55 scripts/experiments/config-ab.sh $o/ln ab/ln32b-suite.json A=configs/layernorm.json N=ab/nfp32/layernorm.json
echo "ln ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/ln/summary.txt >> $o/summary.txt
t0=$SECONDS
BUDGET_S=$((420 - SECONDS)) TURN_S=34 scripts/experiments/config-ab.sh $o/rms ab/rms32-suite.json A=configs/rmsnorm.json N=ab/nfp32/rmsnorm.json
echo "rms ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/rms/summary.txt >> $o/summary.txt
tar -czf $OUT/c3.tgz -C $OUT c3
