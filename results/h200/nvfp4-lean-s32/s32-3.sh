#!/usr/bin/env bash
# Session 32, call 3: gemv_nvfp4 PREFETCH (prefetch.global.L2 of the warp's chunk PREFETCH turns
# ahead, words and scales), every candidate of ab/pf-a.json and ab/pf-b.json, twice; the GPU test.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
SECONDS=0
timeout 150 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu test exit $? in $SECONDS s" >> $O/summary.txt
for rep in 1 2; do
  for f in pf-a pf-b; do
    SECONDS=0
    timeout 120 build/ktune sweep ab/$f.json --exhaustive --retune --cache-dir /tmp/c-$f-$rep --out $O/$f-$rep --no-progress > $O/$f-$rep.log 2>&1
    echo "$f rep $rep exit $? in $SECONDS s" >> $O/summary.txt
  done
done
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
