#!/usr/bin/env bash
# Session 36, call 3: three decode configs alone on 4 problems, same binary, empty caches: the bulk
# kernel with only W in the ring (B, embedded), the register path, the bulk kernel of call 2 (A:
# W, scales and activations in the ring; ab/bulk_a.cu with its config).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O/b $O/reg $O/a
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for v in b reg a; do
  args="--config configs/gemm_nvfp4_bulk.json"
  [[ $v == reg ]] && args="--config configs/gemm_nvfp4.json"
  [[ $v == a ]] && args="--config ab/bulk_a.json --kernel ab/bulk_a.cu"
  SECONDS=0
  timeout 90 build/ktune bench ab/nv4.json $args --cache-dir /tmp/c-$v --out $O/$v --stem bench-nv4 --no-progress > $O/$v/bench-nv4.log 2>&1
  echo "$v bench exit $? in $SECONDS s" >> $O/summary.txt
done
rm -f $O/*/*.tuning.json
tar czf $OUT/r.tgz -C $OUT r
