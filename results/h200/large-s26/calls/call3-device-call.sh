#!/usr/bin/env bash
# Session 26 call 3: issue 38's large GEMMs on an H200, the fp8 (rc, bf16 out) and fp32 (TF32)
# parts of suites/large.json, each tuned from an empty cache by the default guided search against
# cuBLAS(Lt), PyTorch's call of the same library under do_bench in the same call.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s26-3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s26-3.sh $o/device-call.sh
KTUNE_SUITE=ab/large-squares.json timeout 290 scripts/large-gpu.sh $o/fp8 fp8 2048 8192
KTUNE_SUITE=ab/large-squares.json timeout 270 scripts/large-gpu.sh $o/fp32 fp32 2048 8192
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv >> $o/gpu.txt
find $o -name '*.ncu-rep' -delete
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s26-3.tgz -C $OUT s26-3
