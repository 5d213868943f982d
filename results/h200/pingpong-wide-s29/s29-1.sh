#!/usr/bin/env bash
# Session 29 call 1. (a) TF32 squares of suites/large.json from an empty cache, now that stream-K
# may store C from registers where no staged epilogue fits beside the ring (256x128 SWAP tiles),
# with torch do_bench in the same call. (b) fp8 3840^3 --exhaustive: is the search short or the
# kernel? (c) ncu (basic) of cuBLASLt's kernel and ktune's winner at the fp8 dips.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-1; mkdir -p $o/ncu
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
KTUNE_SUITE=ab/large-squares.json timeout 300 scripts/large-gpu.sh $o/fp32 fp32 > $o/large-fp32.log 2>&1
cat $o/fp32/summary.txt >> $o/summary.txt
export KTUNE_CACHE_DIR=/tmp/s29-cache NCU_SET=basic
mk() { python3 - "$@" <<'PY'
import json, sys
path, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
json.dump({"name": path.split('/')[-1][:-5], "problems": [
  {"family": "gemm", "M": s, "N": s, "K": s, "dtype": "fp8", "layout": "rc"} for s in sizes]}, open(path, "w"), indent=1)
PY
}
mk $o/exh.json 3840
t0=$SECONDS
timeout 150 ./build/ktune bench $o/exh.json --exhaustive --out $o --stem exh --no-progress > $o/exh.log 2>&1
echo "exhaustive: exit $? in $((SECONDS-t0)) s" | tee -a $o/summary.txt
for s in 3840 2304 2816 6656; do
  timeout 45 scripts/ncu-details.sh ./build/ktune $o/ncu fp8-$s "{\"family\":\"gemm\",\"M\":$s,\"N\":$s,\"K\":$s,\"dtype\":\"fp8\",\"layout\":\"rc\"}" 'gemm|nvjet|sm90|cutlass' 4 >> $o/summary.txt 2>&1
done
rm -f $o/ncu/*.ncu-rep
grep -E "ktune_gemm|nvjet|cutlass|Elapsed Cycles|Duration|SM Frequency" $o/ncu/*.txt >> $o/summary.txt
tar -czf $OUT/s29-1.tgz -C $OUT s29-1
