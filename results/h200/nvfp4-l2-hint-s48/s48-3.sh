#!/usr/bin/env bash
# Session 48, call 3: ncu kernel durations (gpu__time_duration only, caches flushed, clocks left
# alone) of the same pinned winners (ab/pin.json, call 2's) with the old loads (ab/OLD: HEAD~1's
# kernel) and the L2::256B loads (ab/NEW: HEAD's), in turns OLD NEW NEW OLD, 25 launches each.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for v in OLD NEW NEW OLD; do
  n=$((++i))
  SECONDS=0
  timeout 120 ncu --target-processes all --metrics gpu__time_duration.sum --clock-control none --cache-control all \
    -k regex:ktune_gemv_nvfp4 --launch-count 75 --csv --log-file $O/$n-$v.csv \
    build/ktune bench ab/nv-pin.json --config ab/$v/gemm_nvfp4.json --configs-from ab/pin.json \
    --cache-dir /tmp/c-$v --no-hold --samples 24 --rounds 1 --warmup-ms 1 --out $O/b$n-$v --stem pin --no-progress > $O/$n-$v.log 2>&1
  echo "$n $v exit $? in $SECONDS s" >> $O/summary.txt
done
cp ab/s48-3.sh $O/
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
rm -rf $O/b*/*.tuning.json
tar czf $OUT/r.tgz -C $OUT r
