#!/usr/bin/env bash
# Session 42, call 3 (HEAD's binary): suites/large.json's bf16 and fp8 squares 2048-7936 from empty
# caches against cuBLAS / cuBLASLt, PyTorch's call under do_bench in the same call; ncu's full set on
# fp16 2048^3 and 2816^3 (unthrottled sizes at 0.99x) for ktune's winner and cuBLAS's kernel.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
timeout 170 scripts/large-gpu.sh $r/bf16 bf16 2048 8000
timeout 170 scripts/large-gpu.sh $r/fp8 fp8 2048 8000
KTUNE_NCU_PICKS="0 3" timeout 200 scripts/large-gpu.sh $r/fp16-ncu fp16 2048 2816
rm -f $r/fp16-ncu/ncu/*.ncu-rep.keep
cp ab/call3-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
