#!/usr/bin/env bash
# Session 41, call 6: HEAD's binary (split tail up to a half-full last wave): the split-tail GPU
# test, `ktune gemm --m 4096` from an empty cache with do_bench of PyTorch's cuBLAS, and the three
# TF32 squares with half-full last waves from an empty cache with do_bench.
set -x
tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/call6; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
t0=$(date +%s)
timeout 60 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaSplitTailEveryCombination' > $o/gpu-tests.log 2>&1
echo "gpu test rc=$? $(( $(date +%s) - t0 )) s"
export KTUNE_CACHE_DIR=/tmp/k6
timeout 60 build/ktune gemm --m 4096 --out $o --no-progress > $o/gemm-4096.log 2>&1
echo "gemm rc=$? $(( $(date +%s) - t0 )) s"
timeout 30 python3 scripts/anchor_check.py 4096 > $o/anchor.log 2>&1
timeout 120 build/ktune bench ab/half-s41.json --out $o --stem half --no-progress > $o/half.log 2>&1
echo "bench rc=$? $(( $(date +%s) - t0 )) s"
timeout 30 python3 scripts/torch_gemm_check.py $o/half.json --json $o/torch-half.json > $o/torch-half.log 2>&1
grep -E "^\[ +(OK|FAILED|PASSED) " $o/gpu-tests.log
grep -E "^ +(1|ref) |candidates:" $o/gemm-4096.log; grep anchor $o/anchor.log
grep -E "^ *(ktune|cublas) " $o/half.log; grep torch-check $o/torch-half.log
cd $OUT && tar -czf call6.tgz call6 && rm -rf call6
