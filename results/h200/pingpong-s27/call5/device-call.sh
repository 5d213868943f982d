#!/usr/bin/env bash
# Session 27 call 5: the fp16 squares 2048-7680 by 512 of suites/large.json with PINGPONG in the
# space, the default guided search from an empty cache against cuBLAS, PyTorch's cuBLAS under
# do_bench in the same call, ncu of the 4096^3 winner and cuBLAS's kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s27-5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s27-5.sh ab/large-fp16-512.json $o/
KTUNE_SUITE=ab/large-fp16-512.json KTUNE_PART_NAME=large-fp16-512 KTUNE_NCU_PICKS=4 timeout 290 scripts/large-gpu.sh $o fp16
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
rm -f $o/ncu/*.ncu-rep
tar -czf $OUT/s27-5.tgz -C $OUT s27-5
