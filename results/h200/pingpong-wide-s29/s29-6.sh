#!/usr/bin/env bash
# Session 29 call 6: WgmmaNarrowPanelTiles (its widened key never ran on a GPU), then six fp16 rr
# squares tuned twice from empty caches in the same call: the built-in sweep (A) and ab/pp16.json,
# the built-in sweep with 16-bit pingpong 128x192 tiles searched too (B); torch do_bench beside.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-6; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
( time timeout 100 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaNarrowPanelTiles' ) > $o/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $o/gpu-tests.txt
grep -E "OK \]|FAILED|exit|real" $o/gpu-tests.txt > $o/summary.txt
python3 - $o/fp16.json <<'PY'
import json, sys
ps = [{"family": "gemm", "M": s, "N": s, "K": s, "dtype": "fp16", "layout": "rr"} for s in (3584, 4352, 5120, 5376, 7424, 7680)]
json.dump({"name": "fp16-pp", "problems": ps}, open(sys.argv[1], "w"), indent=1)
PY
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/s29-a timeout 90 ./build/ktune bench $o/fp16.json --out $o --stem builtin --no-progress > $o/builtin.log 2>&1
echo "A built-in: exit $? in $((SECONDS-t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/s29-b timeout 100 ./build/ktune bench $o/fp16.json --config ab/pp16.json --out $o --stem pp16 --no-progress > $o/pp16.log 2>&1
echo "B pp16: exit $? in $((SECONDS-t0)) s" >> $o/summary.txt
timeout 30 python3 scripts/torch_gemm_check.py $o/pp16.json --json $o/torch-pp16.json > $o/torch-pp16.log 2>&1
timeout 30 python3 scripts/torch_gemm_check.py $o/builtin.json --json $o/torch-builtin.json > $o/torch-builtin.log 2>&1
grep -E '^\[|  (cublas|ktune) ' $o/builtin.log $o/pp16.log >> $o/summary.txt
tail -2 $o/torch-pp16.log $o/torch-builtin.log >> $o/summary.txt
rm -f $o/*.tuning.json
gzip -f $o/*.tuning.csv
tar -czf $OUT/s29-6.tgz -C $OUT s29-6
