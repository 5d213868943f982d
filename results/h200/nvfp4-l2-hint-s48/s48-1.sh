#!/usr/bin/env bash
# Session 48, call 1: gemv_nvfp4 with an L2 prefetch-size hint on the weight loads
# (ld.global.nc...L2::256B / L2::128B), against today's loads, over M = 1 and 8 of suites/nvfp4.json
# (bf16), default guided search from empty caches, in turns A B C A B C (config-ab.sh).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
ROUNDS=2 BUDGET_S=520 TURN_S=120 scripts/experiments/config-ab.sh $O/ab ab/nv-ab.json \
  A=configs/gemm_nvfp4.json B=ab/L256/gemm_nvfp4.json C=ab/L128/gemm_nvfp4.json
cp ab/s48-1.sh $O/
ls -l /usr/include/zlib.h /usr/lib/x86_64-linux-gnu/libz.* > $O/zlib.txt 2>&1
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
