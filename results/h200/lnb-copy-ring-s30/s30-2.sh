#!/usr/bin/env bash
# Session 30 call 2: LayerNorm backward's ring of each thread's own copies (CP_STAGES). The GPU test
# of every tunable value on ragged shapes (2000 x 1021 added: the ring going round on shifted
# rows); then ab/lnb-suite.json (limits.json's backward problems and 4000 x 5001 bf16) benched from
# empty caches by the old binary (c6adfa4), the new one, and the old one again, and PyTorch eager
# and torch.compile beside the new one (scripts/limits-gpu.sh).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
o=$OUT/s30-2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/lnb-old1 timeout 100 /tmp/ktune-old bench ab/lnb-suite.json --out $o/old1 --stem bench-old1 --no-progress > $o/old1.log 2>&1
echo "old1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/lnb-new timeout 230 scripts/limits-gpu.sh $o/new ./build/ktune ab/lnb-suite.json >> $o/summary.txt 2>&1
echo "new (with torch): exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/lnb-old2 timeout 100 /tmp/ktune-old bench ab/lnb-suite.json --out $o/old2 --stem bench-old2 --no-progress > $o/old2.log 2>&1
echo "old2: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
gzip -f $o/*/*.tuning.csv $o/*/*.tuning.json $o/*/results/*.tuning.csv $o/*/results/*.tuning.json 2>/dev/null
tar -czf $OUT/s30-2.tgz -C $OUT s30-2
