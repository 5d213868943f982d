#!/usr/bin/env bash
# Session 47, call 6: suites/blockscaled.json whole again on the committed kernel (a second sample
# of call 4), do_bench beside, ncu at 4096 x 7168 x 16384 (basic set).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
KTUNE_NCU_PICKS="15" NCU_SET=basic timeout 330 scripts/blockscaled-gpu.sh $r/suite
gzip -f $r/suite/*.json $r/suite/*.tuning.csv 2>/dev/null; rm -f $r/suite/ncu/*.ncu-rep
cp ab/call6.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
