#!/usr/bin/env bash
# Session 32, call 5: the nvfp4 GPU test with the final kernel and config.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/gpu.txt
SECONDS=0
timeout 200 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*:*Nvfp4*:*nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
