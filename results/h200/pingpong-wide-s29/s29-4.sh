#!/usr/bin/env bash
# Session 29 call 4: fp8 pingpong tiles of 128 rows 144-192 wide in the built-in sweep (PINGPONG
# [0, 1], pruned to those). Their GPU test first, then every fp8 square of suites/large.json
# from an empty cache by the default guided search against cuBLASLt, torch do_bench beside.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
( time timeout 150 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaPingpongEveryCandidate' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
grep -E "OK \]|FAILED|exit|real" $o/gpu-tests.txt > $o/summary.txt
KTUNE_SUITE=ab/large-squares.json timeout 400 scripts/large-gpu.sh $o/fp8 fp8 > $o/large.log 2>&1
cat $o/fp8/summary.txt >> $o/summary.txt
gzip -f $o/fp8/*.tuning.csv $o/fp8/*.tuning.json $o/fp8/bench-large-fp8.json 2>/dev/null
tar -czf $OUT/s29-4.tgz -C $OUT s29-4
