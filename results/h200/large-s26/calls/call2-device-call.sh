#!/usr/bin/env bash
# Session 26 call 2: issue 38's large GEMMs on an H200, fp16 and bf16 parts of suites/large.json
# (squares 2048-8192 by 256, and 8192 x 57344 x 8192), each tuned from an empty cache by the
# default guided search against cuBLAS, PyTorch's cuBLAS under do_bench in the same call, ncu's
# full sections at the fp16 dips the H100 showed (4352, 5120).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s26-2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s26-2.sh $o/device-call.sh
KTUNE_NCU_PICKS="9 12" timeout 330 scripts/large-gpu.sh $o/fp16 fp16 2048 8192
timeout 240 scripts/large-gpu.sh $o/bf16 bf16 2048 8192
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv >> $o/gpu.txt
find $o -name '*.ncu-rep' -delete
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s26-2.tgz -C $OUT s26-2
