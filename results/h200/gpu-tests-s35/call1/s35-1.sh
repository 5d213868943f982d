#!/usr/bin/env bash
# Session 35, call 1: HEAD's binaries (8546cd7; gemm_wgmma's whole-sector direct stores since
# 34e0229): the GPU tests that exercise gemm_wgmma and the CLI and were not run after that change,
# then `ktune gemm --m 4096` against cuBLAS with PyTorch's cuBLAS under do_bench beside it.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 420 build/ktune_gpu_tests --gtest_filter='GemmKernels.MatchCublasOnRaggedShapesEveryDtypeAndLayout:GemmKernels.WgmmaStreamKCounterReadThatMissesStillSums:GemmKernels.WgmmaBlockScaledEveryCandidateAndOneScaleATensorRejected:PlantedFaults.*:BadInputOnGpu.*:Fp8Baseline.*' > $O/gpu-tests.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
t0=$SECONDS
timeout 110 build/ktune gemm --m 4096 --cache-dir /tmp/c-gemm --out $O/gemm --no-progress > $O/gemm.log 2>&1
echo "gemm exit $? in $((SECONDS - t0)) s" >> $O/summary.txt
timeout 45 python3 scripts/torch_gemm_check.py $O/gemm/*.json > $O/torch.log 2>&1
echo "torch exit $? total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
