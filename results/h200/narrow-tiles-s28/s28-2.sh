#!/usr/bin/env bash
# Session 28 call 2: BLOCK_N 144-240 (narrow panels): their GPU test and the block-scaled test's
# fixed plant; the fp8 squares of suites/large.json from an empty cache against cuBLASLt, torch
# do_bench in the same call, ncu at 2560 and 3328.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s28-2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
( time timeout 200 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaNarrowPanelTilesEveryCandidate:GemmKernels.WgmmaBlockScaled*' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
grep -E "OK \]|FAILED|exit" $o/gpu-tests.txt | head
KTUNE_SUITE=large-squares.json KTUNE_NCU_PICKS="2 5" NCU_SET=basic timeout 340 scripts/large-gpu.sh $o/fp8 fp8 > $o/large.log 2>&1
cat $o/fp8/summary.txt
rm -f $o/fp8/ncu/*.ncu-rep
tar -czf $OUT/s28-2.tgz -C $OUT s28-2
