#!/usr/bin/env bash
# Session 47, call 1: block-scaled fp8 at 4096 x 4096 x 7168 (0.90x cuBLASLt in 128 x 128 tiles,
# the tile cuBLASLt runs): ncu beside cuBLASLt, every valid candidate, and the pinned 128 x 128
# winner over K (a per-tile cost shows as an intercept).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
k=./build/ktune
SHAPE=4096x4096x7168 BLOCK_ONLY=1 timeout 150 scripts/experiments/blockscaled-diag.sh $r/diag > $r/diag.log 2>&1
for K in 1792 3584 7168 14336; do
  for p in pin128 pin128c2; do
    echo "== $p K=$K"
    KTUNE_CACHE_DIR=$r/cache-$p timeout 40 $k gemm --m 4096 --n 4096 --k $K --dtype fp8 --layout rc --scaling block \
      --config ab/$p.json --out $r/kscale --no-progress 2>&1 | grep -E "^ +1 |^ ref|cublas  |ktune  "
  done
done > $r/kscale.log 2>&1
KTUNE_CACHE_DIR=$r/cache-ex timeout 200 $k gemm --m 4096 --n 4096 --k 7168 --dtype fp8 --layout rc --scaling block \
  --exhaustive --top 40 --out $r/exhaustive --no-progress > $r/exhaustive.log 2>&1
rm -rf $r/cache-* $r/diag/cache; mkdir -p $OUT/rep; mv $r/diag/*.ncu-rep $OUT/rep/ 2>/dev/null
for f in $r/diag/*.sass.csv $r/exhaustive/*.json $r/kscale/*.json; do [[ -f $f ]] && gzip -f $f; done
cp ab/call1.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
