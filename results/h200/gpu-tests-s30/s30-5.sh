#!/usr/bin/env bash
# Session 30 call 5: the two gemm_wgmma GPU tests that lift built-in constraints through the new
# lift_constraint helper (binaries of 2a87957).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s30-5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 420 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaPingpongEveryCandidate:GemmKernels.WgmmaStreamKTf32MajorsAndCopiedOperandsEveryCandidate' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/gpu-tests.txt
tar -czf $OUT/s30-5.tgz -C $OUT s30-5
