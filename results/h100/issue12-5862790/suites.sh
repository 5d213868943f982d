#!/bin/bash
# The fp16 and bf16 anchors and hopper-dtypes, tuned afresh by the default guided search, from the binary built here.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
R=/tmp/su; rm -rf $R; mkdir -p $R
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv > $R/gpu.txt
for s in anchors-fp16 anchors-bf16 hopper-dtypes; do
  KTUNE_CACHE_DIR=/tmp/kc-su ./build/ktune bench suites/$s.json --out $R --stem bench-$s --no-progress > $R/bench-$s.log 2>&1
  echo "$s exit $?: $(grep -h 'Geometric mean' $R/bench-$s.md)"
done
tar -czf $OUT/su.tgz -C /tmp su
