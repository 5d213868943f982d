#!/usr/bin/env bash
# Session 44, call 6: the norms' GPU tests with check_norm's 8 rows of 32769 columns (all eight
# offsets in the cluster kernel too), on the working tree's binary.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c6; mkdir -p $o
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*Norm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
