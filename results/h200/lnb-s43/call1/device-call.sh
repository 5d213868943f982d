#!/usr/bin/env bash
# Session 43, call 1: LayerNorm backward's shared partials in 16-byte accesses (N, the working
# tree's kernel, embedded) against HEAD's kernel (A, ab/old) in turns over five problems; the
# pinned config (ab/pin.json: N's L2_AHEAD 0 configuration, second to the L2_AHEAD 2 winner) at 1056-16000 rows (fixed cost against the copy's); ncu with
# the SASS page of N's 4000 x 5001 winner; the backward's GPU tests first.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
BUDGET_S=330 TURN_S=90 scripts/experiments/config-ab.sh $o/ab ab/lnb-suite.json A=ab/old/lnb.json N=configs/layernorm_backward.json
cat $o/ab/summary.txt >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/pin timeout 90 ./build/ktune bench ab/scaling.json --config ab/pin.json --out $o/scaling --stem scaling --no-progress > $o/scaling.log 2>&1
echo "scaling: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/config-ab-N1 timeout 100 scripts/ncu-details.sh ./build/ktune $o/ncu lnb5001 '{"family":"layernorm_backward","rows":4000,"cols":5001,"dtype":"fp16"}' '^ktune_layernorm_bwd' 1 >> $o/summary.txt 2>&1
timeout 60 ncu --import $o/ncu/lnb5001.ncu-rep --page source --csv --print-source sass > $o/ncu/lnb5001.sass.csv 2> $o/ncu/sass.err
python3 scripts/experiments/ncu_stalls.py $o/ncu/lnb5001.sass.csv > $o/ncu/lnb5001.stalls.txt 2>&1
echo "ncu: in $((SECONDS - t0)) s" >> $o/summary.txt
rm -f $o/ncu/*.ncu-rep; gzip -f $o/ncu/*.csv $o/scaling/*.tuning.csv $o/scaling/*.json 2>/dev/null
tar -czf $OUT/c1.tgz -C $OUT c1
