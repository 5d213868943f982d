#!/usr/bin/env bash
# Session 27 call 1: stream-K's cost at fp8 2560^3 / 3328^3 and fp16 5120^3 (H200). The same
# binary times two gemm_wgmma sources (--kernel): HEAD's (ab/old/kernels) and this tree's, where a
# stream-K part that starts its tile looks at the counter before writing partials. Then ncu (full
# set, source counters) of the stream-K and the data-parallel 128x256 candidates at fp8 2560^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s27-1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s27-1.sh ab/sk.json ab/sk1.json ab/dp.json $o/
t=$SECONDS; timeout 200 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaStreamK*:GemmKernels.*BlockScaled*' > $o/gpu-tests.log 2>&1
echo "tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
ab() {  # ab NAME KERNEL ARGS...
  local name=$1 kernel=$2; shift 2
  t=$SECONDS; timeout 90 ./build/ktune gemm "$@" --config ab/sk.json --kernel $kernel --exhaustive --retune \
    --cache-dir /tmp/cache-$name --out $o/$name --no-progress --top 12 > $o/$name.log 2>&1
  echo "$name: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
}
for round in 1 2; do
  for p in "fp8-2560:--m 2560 --dtype fp8 --layout rc" "fp8-3328:--m 3328 --dtype fp8 --layout rc" "fp16-5120:--m 5120 --dtype fp16"; do
    tag=${p%%:*}; args=${p#*:}
    if [ $round = 1 ]; then order="old new"; else order="new old"; fi
    for k in $order; do
      [ $k = old ] && src=ab/old/kernels/gemm_wgmma.cu || src=kernels/gemm_wgmma.cu
      ab $tag-$k-r$round $src $args
    done
  done
done
for v in sk1-new:sk1:kernels sk1-old:sk1:ab/old/kernels dp-new:dp:kernels; do
  name=${v%%:*}; rest=${v#*:}; cfg=${rest%%:*}; dir=${rest#*:}
  t=$SECONDS
  timeout 100 ncu --target-processes all --set full --import-source yes --clock-control none --cache-control all \
    -k regex:ktune_gemm_wgmma --launch-skip 2 --launch-count 1 -f -o $o/ncu-$name \
    ./build/ktune gemm --m 2560 --dtype fp8 --layout rc --config ab/$cfg.json --kernel $dir/gemm_wgmma.cu --exhaustive --retune \
    --cache-dir /tmp/ncu-$name --out /tmp/ncu-out-$name --no-progress --timeout 60 > $o/ncu-$name.log 2>&1
  echo "ncu $name: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
  ncu --import $o/ncu-$name.ncu-rep --page details > $o/ncu-$name.txt 2>&1
  ncu --import $o/ncu-$name.ncu-rep --page source --csv --print-source sass > $o/ncu-$name-sass.csv 2>/dev/null || true
done
find $o -name "*.tuning.csv" -exec gzip -f {} \; ; gzip -f $o/*-sass.csv 2>/dev/null
tar -czf $OUT/s27-1.tgz -C $OUT s27-1
