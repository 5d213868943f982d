#!/usr/bin/env bash
# Session 28 call 1: pending GPU tests; block-scaled consumers holding the tensor cores in turns
# (excl: one consumer's k tile at a time; excl2: handed over when the first half completes);
# cuBLASLt's fp8 kernels at the 2560/3328 dips.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s28-1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/excl.cu ab/excl2.cu ab/s28-1.sh $o/
( time timeout 170 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*:GemmKernels.WgmmaStreamKCounterReadThatMissesStillSums' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
tail -5 $o/gpu-tests.txt
VARIANTS="kernel excl excl2" SHAPES="4096x4096x7168 4096x7168x16384 128x7168x2048" \
  timeout 280 scripts/experiments/blockscaled-ab.sh $o/ab ./build/ktune > $o/ab.log 2>&1
rm -rf $o/ab/cache-*
cat $o/ab.log | grep -E "exit|final" | head -40
for s in 2560 3328; do
  NCU_SET=basic KTUNE_CACHE_DIR=$o/cache-fp8 timeout 50 scripts/ncu-details.sh ./build/ktune $o/fp8-ncu lt$s \
    "{\"family\":\"gemm\",\"M\":$s,\"N\":$s,\"K\":$s,\"dtype\":\"fp8\",\"layout\":\"rc\"}" 'nvjet|sm90_xmma|cutlass' 1
  grep -E "nvjet|Duration|Grid Size|Cluster Size|Block Size" $o/fp8-ncu/lt$s.txt | head -8
done
rm -rf $o/cache-fp8 $o/fp8-ncu/*.ncu-rep
tar -czf $OUT/s28-1.tgz -C $OUT s28-1
