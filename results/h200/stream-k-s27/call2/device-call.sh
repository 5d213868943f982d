#!/usr/bin/env bash
# Session 27 call 2: STREAM_K 3 (whole waves first, the partial wave streamed) and the peek, on an
# H200: the GPU test of every stream-K candidate (two new shapes where STREAM_K 3 is valid), a
# scratch sweep (ab/sk.json: stream-K 0-3 beside data-parallel) at the fp8/TF32 dips of
# results/h200/large-s26 and fp16 5120^3, and ncu of STREAM_K 3 against data-parallel at fp8 2560^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s27-2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s27-2.sh ab/sk.json ab/sk3.json ab/dp.json $o/
for p in "fp8-2560:--m 2560 --dtype fp8 --layout rc" "fp8-3328:--m 3328 --dtype fp8 --layout rc" "fp8-2304:--m 2304 --dtype fp8 --layout rc" \
         "fp32-2304:--m 2304 --dtype fp32" "fp32-4864:--m 4864 --dtype fp32" "fp16-5120:--m 5120 --dtype fp16"; do
  tag=${p%%:*}; args=${p#*:}
  t=$SECONDS; timeout 100 ./build/ktune gemm $args --config ab/sk.json --exhaustive --retune \
    --cache-dir /tmp/cache-$tag --out $o/$tag --no-progress --top 50 > $o/$tag.log 2>&1
  echo "$tag: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
done
for v in sk3:sk3 dp:dp; do
  name=${v%%:*}; cfg=${v#*:}
  t=$SECONDS
  timeout 100 ncu --target-processes all --set full --import-source yes --clock-control none --cache-control all \
    -k regex:ktune_gemm_wgmma --launch-skip 2 --launch-count 1 -f -o $o/ncu-$name \
    ./build/ktune gemm --m 2560 --dtype fp8 --layout rc --config ab/$cfg.json --exhaustive --retune \
    --cache-dir /tmp/ncu-$name --out /tmp/ncu-out-$name --no-progress --timeout 60 > $o/ncu-$name.log 2>&1
  echo "ncu $name: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
  ncu --import $o/ncu-$name.ncu-rep --page details > $o/ncu-$name.txt 2>&1
  ncu --import $o/ncu-$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/ncu-$name-sass.csv.gz
done
t=$SECONDS; timeout 300 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamK*' > $o/gpu-tests.log 2>&1
echo "tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s27-2.tgz -C $OUT s27-2
