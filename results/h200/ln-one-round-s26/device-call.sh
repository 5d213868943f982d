#!/usr/bin/env bash
# Session 26 call 1: LayerNorm's register kernel with ONE_ROUND (shifted sums in one exchange)
# against the same config without it (ab/ln-old.json: ONE_ROUND 0 alone, SASS identical to
# e6c2b7c's candidates), on the LayerNorm problems of suites/limits.json and suites/norms.json.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s26-1; mkdir -p $o
say() { echo "$*" | tee -a $o/summary.txt; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s26-1.sh ab/ln-suite.json ab/ln-old.json $o/
t=$SECONDS; timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNorm*:BiasGeluDropoutGpu.NormalCdf*' > $o/gpu-tests.log 2>&1; say "tests: exit $? in $((SECONDS-t)) s"
t=$SECONDS; KTUNE_CACHE_DIR=/tmp/c-ex timeout 100 ./build/ktune layernorm --rows 4096 --cols 5001 --dtype fp16 --config configs/layernorm.json --exhaustive --retune --top 40 --out $o/exhaustive --no-progress > $o/exhaustive.log 2>&1; say "exhaustive: exit $? in $((SECONDS-t)) s"
t=$SECONDS; KTUNE_CACHE_DIR=/tmp/c-old timeout 120 ./build/ktune bench ab/ln-suite.json --config ab/ln-old.json --out $o/old --stem bench-old --no-progress > $o/bench-old.log 2>&1; say "bench old: exit $? in $((SECONDS-t)) s"
t=$SECONDS; KTUNE_CACHE_DIR=/tmp/c-new timeout 170 ./build/ktune bench ab/ln-suite.json --config configs/layernorm.json --out $o/new --stem bench-new --no-progress > $o/bench-new.log 2>&1; say "bench new: exit $? in $((SECONDS-t)) s"
t=$SECONDS; KTUNE_CACHE_DIR=/tmp/c-new timeout 60 python3 scripts/ncu_memory_bound.py ./build/ktune $o/new/bench-new.json $o/ncu 0 > $o/ncu.log 2>&1; say "ncu: exit $? in $((SECONDS-t)) s"
find $o -name '*.ncu-rep' -delete
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s26-1.tgz -C $OUT s26-1
