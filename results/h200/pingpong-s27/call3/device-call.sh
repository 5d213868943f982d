#!/usr/bin/env bash
# Session 27 call 3: gemm_wgmma's PINGPONG on an H200. The GPU test of every pingpong candidate
# (four shapes), then ab/pp.json (cooperative and pingpong tiles, data-parallel) swept exhaustively
# at fp16 4096^3, 5120^3, 6144^3, bf16 4352^3 and fp8 2560^3, 4096^3, against cuBLAS(Lt) in the same rounds.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s27-3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s27-3.sh ab/pp.json $o/
t=$SECONDS; timeout 240 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaPingpong*' > $o/gpu-tests.log 2>&1
echo "tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
for p in "fp16-4096:--m 4096 --dtype fp16" "fp16-5120:--m 5120 --dtype fp16" "fp16-6144:--m 6144 --dtype fp16" \
         "bf16-4352:--m 4352 --dtype bf16" "fp8-2560:--m 2560 --dtype fp8 --layout rc" "fp8-4096:--m 4096 --dtype fp8 --layout rc"; do
  tag=${p%%:*}; args=${p#*:}
  t=$SECONDS; timeout 100 ./build/ktune gemm $args --config ab/pp.json --exhaustive --retune \
    --cache-dir /tmp/cache-$tag --out $o/$tag --no-progress --top 30 > $o/$tag.log 2>&1
  echo "$tag: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
done
find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s27-3.tgz -C $OUT s27-3
