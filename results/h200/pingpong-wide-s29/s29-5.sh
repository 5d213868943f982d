#!/usr/bin/env bash
# Session 29 call 5: the fp8 squares call 4 did not reach (6912-8192) from an empty cache with
# torch do_bench beside, and ncu (basic) of 3840^3 and 6656^3 against cuBLASLt. scripts/ncu-details.sh
# tunes each problem again in its own cache first: at 6656^3 it picked another kernel than call 4.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
KTUNE_SUITE=ab/large-squares.json timeout 330 scripts/large-gpu.sh $o/fp8 fp8 6912 > $o/large.log 2>&1
cat $o/fp8/summary.txt >> $o/summary.txt
export KTUNE_CACHE_DIR=/tmp/s29-ncu-cache NCU_SET=basic
for s in 3840 6656; do
  timeout 60 scripts/ncu-details.sh ./build/ktune $o/ncu fp8-$s "{\"family\":\"gemm\",\"M\":$s,\"N\":$s,\"K\":$s,\"dtype\":\"fp8\",\"layout\":\"rc\"}" '^(ktune_gemm_wgmma|nvjet)' 4 >> $o/summary.txt 2>&1
done
rm -f $o/ncu/*.ncu-rep
grep -E "^  (void|nvjet)|Elapsed Cycles|Duration|SM Frequency" $o/ncu/*.txt | sed 's/(CUtensorMap.*//' >> $o/summary.txt
gzip -f $o/fp8/*.tuning.csv $o/fp8/*.tuning.json $o/fp8/bench-large-fp8.json 2>/dev/null
tar -czf $OUT/s29-5.tgz -C $OUT s29-5
