#!/usr/bin/env bash
# Session 40, call 4: where gemm_wgmma's block-scaled winner at 4096 x 7168 x 16384 waits now
# that the TMA thread copies the scales in bulk (session 39), beside cuBLASLt's kernel: ncu's
# full set and per-instruction stalls, as session 22 took them before the bulk copies
# (results/h200/blockscaled-ed30653/diag-4096x7168x16384).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s40-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
SHAPE=4096x7168x16384 BLOCK_ONLY=1 timeout 440 scripts/experiments/blockscaled-diag.sh $o/diag ./build/ktune > $o/diag.log 2>&1
echo "diag: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
rm -rf $o/diag/cache $o/diag/*.ncu-rep
gzip -f $o/diag/*.tuning.csv $o/diag/*.json $o/diag/*.sass.csv 2>/dev/null
rm -f $o/diag/*.tuning.json.gz
tar czf $OUT/s40-4.tgz -C $OUT s40-4
