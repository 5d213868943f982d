#!/usr/bin/env bash
# Session 34, calls 4-5: suites/large.json's fp8 squares (MIN..MAX) from an empty cache by the
# default guided search against cuBLASLt, with whole-sector direct stores; do_bench beside.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 480 scripts/large-gpu.sh $O/fp8 fp8 ${MIN:-0} ${MAX:-1000000} > $O/large.log 2>&1
echo "large exit $? in $SECONDS s" >> $O/summary.txt
cat $O/fp8/summary.txt >> $O/summary.txt
gzip -f $O/fp8/*.tuning.csv $O/fp8/*.tuning.json 2>/dev/null
tar czf $OUT/r.tgz -C $OUT r
