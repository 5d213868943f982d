#!/usr/bin/env bash
# Session 31, call 1: gemv_nvfp4's AHEAD (the next chunk's loads before this one's decode).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for c in ab/cubins/*.cubin; do cuobjdump -sass $c > $O/$(basename $c .cubin).sass 2>&1; done
timeout 120 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
for s in "1 4096 14336" "1 14336 4096" "1 4096 4096" "8 4096 14336"; do set -- $s
  timeout 90 build/ktune gemm_nvfp4 --m $1 --n $2 --k $3 --exhaustive --cache-dir /tmp/c-$1-$2-$3 \
    --out $O/exh-$1-$2-$3 --no-progress > $O/exh-$1-$2-$3.log 2>&1
done
timeout 180 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaPingpongEveryCandidate' > $O/gpu-tests-pingpong.txt 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
