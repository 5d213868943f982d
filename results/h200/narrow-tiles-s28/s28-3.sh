#!/usr/bin/env bash
# Session 28 call 3: BLOCK_N 144-240 with staged epilogues (whole panels staged, the tail stored
# directly): their GPU test, then the fp8 squares of suites/large.json from an empty cache against
# cuBLASLt, torch do_bench in the same call, ncu at 2560 and 3328.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s28-3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
( time timeout 150 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaNarrowPanelTilesEveryCandidate' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
grep -E "OK \]|FAILED|exit" $o/gpu-tests.txt | head
KTUNE_SUITE=large-squares.json KTUNE_NCU_PICKS="2 5" NCU_SET=basic timeout 390 scripts/large-gpu.sh $o/fp8 fp8 > $o/large.log 2>&1
cat $o/fp8/summary.txt
rm -f $o/fp8/ncu/*.ncu-rep
tar -czf $OUT/s28-3.tgz -C $OUT s28-3
