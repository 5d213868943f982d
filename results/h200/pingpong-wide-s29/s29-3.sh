#!/usr/bin/env bash
# Session 29 call 3: pingpong tiles of 128 rows a consumer with 144-192 columns (144-192
# accumulators a thread, past the 128 the built-in config allows), ab/pp.json + ab/gemm_wgmma_pp.cu
# (the kernel with the two accumulator asserts relaxed), every candidate, against cuBLASLt in the
# same bench; ncu basic of the 3840 winner against cuBLASLt's nvjet 176x128.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-3; mkdir -p $o
export KTUNE_CACHE_DIR=/tmp/s29-cache
python3 - $o/pp.json <<'PY'
import json, sys
ps = [{"family": "gemm", "M": s, "N": s, "K": s, "dtype": "fp8", "layout": "rc"} for s in (3840, 6656, 2304, 2816, 4096, 5120, 2560, 8192)]
ps += [{"family": "gemm", "M": s, "N": s, "K": s, "dtype": d, "layout": "rr"} for d in ("fp16", "bf16") for s in (4096, 5120)]
json.dump({"name": "pp", "problems": ps}, open(sys.argv[1], "w"), indent=1)
PY
t0=$SECONDS
timeout 330 ./build/ktune bench $o/pp.json --config ab/pp.json --exhaustive --out $o --stem pp --no-progress > $o/pp.log 2>&1
echo "pp bench: exit $? in $((SECONDS-t0)) s" >> $o/summary.txt
printf '{"name":"pp3840","problems":[{"family":"gemm","M":3840,"N":3840,"K":3840,"dtype":"fp8","layout":"rc"}]}\n' > $o/pp3840.json
timeout 60 ncu --target-processes all --set basic --clock-control none --cache-control all \
  -k 'regex:^(ktune_gemm_wgmma|nvjet)' --launch-count 4 -f -o $o/ncu-3840 \
  ./build/ktune bench $o/pp3840.json --config ab/pp.json --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
  --out $o --stem ncu-3840 --no-progress > $o/ncu-3840.log 2>&1
echo "ncu: exit $?" >> $o/summary.txt
ncu --import $o/ncu-3840.ncu-rep --page details > $o/ncu-3840.txt 2>&1
rm -f $o/*.ncu-rep
grep -E "^  (void|nvjet)|Elapsed Cycles|Duration" $o/ncu-3840.txt | sed 's/(CUtensorMap.*//' >> $o/summary.txt
grep -E '^\[|  (cublas|ktune) ' $o/pp.log >> $o/summary.txt
tar -czf $OUT/s29-3.tgz -C $OUT s29-3
