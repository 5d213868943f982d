#!/usr/bin/env bash
# Session 27 call 4: gemm_wgmma's PINGPONG with the order barrier (a consumer waits on its tile's
# stages only after the other has waited on the tile before: the "full" barriers tell phases
# apart by parity alone). The GPU test of every pingpong candidate, ab/pp.json swept exhaustively
# at fp16 4096^3, 6144^3, bf16 4352^3, fp8 4096^3, then the stream-K test with the time left.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s27-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s27-4.sh ab/pp.json $o/
t=$SECONDS; timeout 200 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaPingpong*' > $o/gpu-tests-pingpong.log 2>&1
echo "pingpong tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
for p in "fp16-4096:--m 4096 --dtype fp16" "fp16-6144:--m 6144 --dtype fp16" "bf16-4352:--m 4352 --dtype bf16" "fp8-4096:--m 4096 --dtype fp8 --layout rc"; do
  tag=${p%%:*}; args=${p#*:}
  t=$SECONDS; timeout 60 ./build/ktune gemm $args --config ab/pp.json --exhaustive --retune \
    --cache-dir /tmp/cache-$tag --out $o/$tag --no-progress --top 30 > $o/$tag.log 2>&1
  echo "$tag: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
done
left=$((520 - SECONDS)); echo "stream-K test gets $left s" >> $o/summary.txt
if [ $left -gt 30 ]; then
  t=$SECONDS; timeout $left ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamK*' > $o/gpu-tests-stream-k.log 2>&1
  echo "stream-K tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
fi
find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s27-4.tgz -C $OUT s27-4
