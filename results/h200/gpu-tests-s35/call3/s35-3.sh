#!/usr/bin/env bash
# Session 35, call 3: HEAD's binaries (gemm_wgmma as 34e0229 left it): the broad GEMM GPU tests
# not run since 34e0229's whole-sector direct stores (every dtype and layout on ragged shapes,
# stream-K's counter read, block-scaled fp8, planted faults).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 575 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamKCounterReadThatMissesStillSums:PlantedFaults.*:GemmKernels.WgmmaBlockScaledEveryCandidateAndOneScaleATensorRejected:GemmKernels.MatchCublasOnRaggedShapesEveryDtypeAndLayout' > $O/gpu-tests.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
