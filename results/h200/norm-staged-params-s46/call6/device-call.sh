#!/usr/bin/env bash
# Session 46, call 6: the line-buffered binary on the GPU: the planted wrong LayerNorm test (the
# worker path), and LayerNorm 4096 x 5001 fp16 tuned from an empty cache with stdout into a file.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c6; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
timeout 60 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.APlantedWrong*:MemoryBoundGpu.AnRmsNorm*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $?" >> $o/summary.txt
timeout 90 ./build/ktune bench ab/ln-5001.json --cache-dir /tmp/c6 --out $o/bench --stem bench --no-progress > $o/bench.log 2>&1
echo "bench: exit $?" >> $o/summary.txt
rm -f $o/bench/*.json
tar -czf $OUT/c6.tgz -C $OUT c6
