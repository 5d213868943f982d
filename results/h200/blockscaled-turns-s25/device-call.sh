#!/usr/bin/env bash
# Session 25 call 1: block-scaled turns (sums of a k tile promoted while the next tile's wgmma run).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s25-1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/turn2.cu ab/turn4.cu ab/s25-1.sh $o/
VARIANTS="kernel turn2 turn4" SHAPES="4096x4096x7168 4096x7168x16384 4096x2112x7168 4096x4096x6912 128x7168x2048" \
  timeout 540 scripts/experiments/blockscaled-ab.sh $o/ab ./build/ktune > $o/ab.log 2>&1
rm -rf $o/ab/cache-*
tar -czf $OUT/s25-1.tgz -C $OUT s25-1
