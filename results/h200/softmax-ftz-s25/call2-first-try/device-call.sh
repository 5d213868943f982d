#!/usr/bin/env bash
# Session 25 call 2: softmax exponentials without exp2f's subnormal path (ftz), and the packed
# path's maximum on pairs with a fused exponent (packed); the old binary beside them.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bins.tar.xz -C .carry && tar -xJf .carry/tests.tar.xz -C .carry
o=$OUT/s25-2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/s25-2.sh ab/softmax-big.json $o/
timeout 100 .carry/t/ktune_gpu_tests --gtest_filter='SoftmaxGpu.*:MemoryBoundGpu.Softmax*' > $o/gpu-tests.log 2>&1; echo "gpu tests exit $?" >> $o/gpu-tests.log
for v in old ftz packed; do
  KTUNE_CACHE_DIR=$o/cache-$v timeout 150 .carry/bins/ktune-$v bench ab/softmax-big.json --out $o --stem bench-$v --no-progress > $o/bench-$v.log 2>&1
  echo "$v exit $?" >> $o/summary.txt
done
rm -rf $o/cache-*
gzip -f $o/*.json $o/*.tuning.csv 2>/dev/null
tar -czf $OUT/s25-2.tgz -C $OUT s25-2
