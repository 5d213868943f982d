#!/usr/bin/env bash
# Session 41, call 3: the committed binary (SWAP's consumers split the tile's columns): the TF32
# GPU tests, then suites/large.json's TF32 squares 2048-4864 from an empty cache against cuBLAS
# with PyTorch's cuBLAS under do_bench (scripts/large-gpu.sh).
set -x
tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/call3; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
t0=$(date +%s)
timeout 320 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamKTf32MajorsAndCopiedOperandsEveryCandidate:GemmKernels.WgmmaSplitTailEveryCombination' > $o/gpu-tests.log 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - t0 )) s"
scripts/large-gpu.sh $o/large fp32 2048 4864
echo "large part 1: $(( $(date +%s) - t0 )) s"
grep -E "^\[ +(OK|FAILED|PASSED) |tests ran" $o/gpu-tests.log
cat $o/large/summary.txt; grep -E "torch-check" $o/large/torch-large-fp32.log
cd $OUT && tar -czf call3.tgz call3 && rm -rf call3
