#!/usr/bin/env bash
# Session 34, call 6: ncu kernel durations, cycles and L2 write sectors of ktune's winner and
# cuBLASLt's kernel at two former fp8 dips (3840^3, 2304^3), each tuned first from an empty cache.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
export KTUNE_CACHE_DIR=/tmp/c36
SECONDS=0
for n in 3840 2304; do
  printf '{"name": "d%s", "problems": [{"family":"gemm","M":%s,"N":%s,"K":%s,"dtype":"fp8","layout":"rc"}]}\n' $n $n $n $n > $O/d$n.json
  timeout 60 build/ktune bench $O/d$n.json --out $O --stem tune-$n --no-progress > $O/tune-$n.log 2>&1
  echo "tune $n exit $? at $SECONDS s" >> $O/summary.txt
  timeout 80 ncu --target-processes all --clock-control none --cache-control all -k 'regex:ktune_gemm|nvjet' --launch-count 6 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__cycles_active.avg,lts__t_sectors_op_write.sum,lts__t_requests_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum \
    build/ktune bench $O/d$n.json --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 --out $O --stem ncu-$n --no-progress > $O/ncu-$n.txt 2>&1
  echo "ncu $n exit $? at $SECONDS s" >> $O/summary.txt
done
tar czf $OUT/r.tgz -C $OUT r
