#!/usr/bin/env bash
# Session 30 call 4: block-scaled fp8, the consumer's four warps synchronized once a k tile (named
# barrier, 128 threads), as cuBLASLt's block-scaled kernel does (BAR.SYNC 0x0, 0x80 between its
# scale loads and its wait): before the k tile's wgmma (bs_sync1) or before the wait (bs_sync2),
# against the committed kernel, each tuned from an empty cache against cuBLASLt in the same rounds.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s30-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
VARIANTS="kernel bs_sync1 bs_sync2" SHAPES="4096x4096x7168 4096x7168x16384 128x7168x2048" \
  timeout 330 scripts/experiments/blockscaled-ab.sh $o/ab > $o/ab.log 2>&1
echo "ab: exit $?" >> $o/ab.log
rm -rf $o/ab/cache-* $o/ab/ncu/*.ncu-rep
find $o -name '*.json' -o -name '*.csv' | xargs gzip -f 2>/dev/null
tar -czf $OUT/s30-4.tgz -C $OUT s30-4
