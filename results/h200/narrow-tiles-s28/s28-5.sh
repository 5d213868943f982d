#!/usr/bin/env bash
# Session 28 call 5: the gemm_wgmma GPU tests after their setup moved into WgmmaCheck (all but the
# 280-second stream-K one).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
timeout 245 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamKCounterReadThatMissesStillSums:GemmKernels.WgmmaNarrowPanelTiles:GemmKernels.WgmmaBlockScaled*:GemmKernels.WgmmaPingpongEveryCandidate' > $OUT/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $OUT/gpu-tests.txt
grep -E "OK \]|FAILED|exit" $OUT/gpu-tests.txt | head
