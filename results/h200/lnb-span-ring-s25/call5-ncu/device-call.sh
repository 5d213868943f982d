#!/usr/bin/env bash
# Session 25 call 5: where LayerNorm backward 4000 x 5001's winner spends its time (ncu --set full).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s25-5; mkdir -p $o
cp ab/s25-5.sh ab/lnb5001.json ab/ncu_full.sh $o/
export KTUNE_CACHE_DIR=$o/cache
timeout 120 ./build/ktune bench ab/lnb5001.json --out $o --stem bench-lnb5001 --no-progress > $o/bench.log 2>&1; echo "bench exit $?" >> $o/summary.txt
timeout 200 bash ab/ncu_full.sh ./build/ktune ab/lnb5001.json '^ktune_layernorm_bwd' $o lnb5001 >> $o/summary.txt 2>&1
rm -rf $o/cache; gzip -f $o/*.raw.csv $o/*.tuning.csv 2>/dev/null
tar -czf $OUT/s25-5.tgz -C $OUT s25-5
