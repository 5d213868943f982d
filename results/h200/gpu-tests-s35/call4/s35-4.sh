#!/usr/bin/env bash
# Session 35, call 4: the ragged-shape GEMM test, now one instance a dtype; fp8 and fp16 (2-byte C,
# the direct-store path 34e0229 changed), with HEAD's kernels.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
for d in fp8 fp16; do
  timeout $((395 - SECONDS)) build/ktune_gpu_tests --gtest_filter="EveryDtype/GemmKernelsRagged.*/$d" > $O/gpu-tests-$d.txt 2>&1
  echo "gpu tests $d exit $? at $SECONDS s" >> $O/summary.txt
done
tar czf $OUT/r.tgz -C $OUT r
