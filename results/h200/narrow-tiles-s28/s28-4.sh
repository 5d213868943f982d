#!/usr/bin/env bash
# Session 28 call 4: the narrow-panel GPU test, one candidate of each combination.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s28-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
( time timeout 300 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaNarrowPanelTiles:GemmKernels.WgmmaPingpongEveryCandidate' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
grep -E "OK \]|FAILED|exit|real" $o/gpu-tests.txt | head
