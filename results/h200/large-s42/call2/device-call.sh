#!/usr/bin/env bash
# Session 42, call 2: gemm_wgmma's row-major B panels dealt across a 2-CTA cluster (192-wide 16-bit
# tiles in clusters): GPU tests, then suites/large.json's fp16 squares 2048-7936 from empty caches,
# the new binary then HEAD's (03d1804's kernels and configs), each with PyTorch's cuBLAS under do_bench.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz; tar -xJf ab/old-s42.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
t0=$SECONDS
timeout 230 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaRowMajorBPanelsDealtAcrossTheCluster:EveryDtype/GemmKernelsRagged.*/fp16' > $r/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" | tee -a $r/summary.txt
KTUNE_CACHE_DIR=/tmp/c-new timeout 175 scripts/large-gpu.sh $r/new fp16 2048 8000 ./build/ktune
KTUNE_CACHE_DIR=/tmp/c-old timeout 175 scripts/large-gpu.sh $r/old fp16 2048 8000 ./old/ktune
cp ab/call2-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
