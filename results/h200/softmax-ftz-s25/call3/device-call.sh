#!/usr/bin/env bash
# Session 25 call 3: softmax's exponentials with ftz (all kernels but the register kernel's output
# pass): GPU tests, then limits-gpu.sh on the large softmax problems (bench, PyTorch, ncu), and
# the old binary's bench of the same problems.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz && xz -dk .carry/ktune-old.xz && chmod +x .carry/ktune-old
o=$OUT/s25-3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/s25-3.sh ab/softmax-big.json $o/
timeout 120 ./build/ktune_gpu_tests --gtest_filter='SoftmaxGpu.*:MemoryBoundGpu.*Softmax*' > $o/gpu-tests.log 2>&1; echo "gpu tests exit $?" >> $o/summary.txt
KTUNE_CACHE_DIR=$o/cache-old timeout 150 .carry/ktune-old bench ab/softmax-big.json --out $o/old --stem bench-old --no-progress > $o/bench-old.log 2>&1
echo "old exit $?" >> $o/summary.txt
KTUNE_CACHE_DIR=$o/cache-new KTUNE_NCU_PICKS="1 2 3" timeout 330 scripts/limits-gpu.sh $o/new ./build/ktune ab/softmax-big.json
echo "new exit $?" >> $o/summary.txt
rm -rf $o/cache-*
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s25-3.tgz -C $OUT s25-3
