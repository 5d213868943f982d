#!/bin/bash
# The GEMM GPU tests (every gemm_wgmma path among them) from the binaries built here.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
( time ./build/ktune_gpu_tests --gtest_filter='GemmKernels.*' ) > $OUT/gpu-tests-gemm.log 2>&1
echo "exit $?" >> $OUT/gpu-tests-gemm.log
grep -E "^\[  (PASSED|FAILED) |OK \]|FAILED  \]|^real|exit" $OUT/gpu-tests-gemm.log
