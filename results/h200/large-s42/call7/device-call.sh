#!/usr/bin/env bash
# Session 42, call 7: one "empty" arrival a consumer warpgroup and CTA (lane r of warp 0 for CTA r,
# as CUTLASS's PipelineTmaAsync) instead of one a warp, outside block scales: GPU tests, then the
# pinned fp16 configurations (CLUSTER_M 1 and 2) of HEAD's binary (old/ktune) and the new one in
# turns against cuBLAS, and ncu's cycles for both at 2816^3.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz; tar -xJf ab/old-s42.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
t0=$SECONDS
timeout 150 build/ktune_gpu_tests --gtest_filter='EveryDtype/GemmKernelsRagged.*/fp16:GemmKernels.WgmmaSplitTailEveryCombination' > $r/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" | tee -a $r/summary.txt
for turn in 1 2; do for bin in old new; do for v in cm1 cm2; do
  k=./build/ktune; [ $bin = old ] && k=./old/ktune
  timeout 30 $k bench ab/pin-suite.json --configs-from ab/pin-$v.json --out $r/$bin-$v-$turn --stem b --no-progress > $r/$bin-$v-$turn.log 2>&1
  echo "bench $bin $v $turn: $?" | tee -a $r/summary.txt
done; done; done
M=sm__cycles_elapsed.avg,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sectors_op_read.sum
for bin in old new; do
  k=./build/ktune; [ $bin = old ] && k=./old/ktune
  timeout 40 ncu --metrics $M --clock-control none --cache-control all -k 'regex:^ktune_gemm_wgmma' --launch-count 6 --csv --page raw \
    $k bench ab/pin-2816.json --configs-from ab/pin-cm2.json --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 --out /tmp/nc-$bin --stem x --no-progress > $r/ncu-$bin-cm2.csv 2>&1
  echo "ncu $bin: $?" | tee -a $r/summary.txt
done
cp ab/call7-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
