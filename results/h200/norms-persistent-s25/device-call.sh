#!/usr/bin/env bash
# Session 25 call 4: the norms' persistent grid (BLOCKS_PER_SM) on shifted rows: GPU tests, the
# old binary's bench, then limits-gpu.sh with the new one (bench, PyTorch, ncu).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz && xz -dk .carry/ktune-old.xz && chmod +x .carry/ktune-old
o=$OUT/s25-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/s25-4.sh ab/norms-ab.json $o/
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormMatches*:MemoryBoundGpu.RmsNormMatches*:MemoryBoundGpu.APlantedWrongLayerNorm*:MemoryBoundGpu.AnRmsNorm*' > $o/gpu-tests.log 2>&1; echo "gpu tests exit $?" >> $o/summary.txt
KTUNE_CACHE_DIR=$o/cache-old timeout 100 .carry/ktune-old bench ab/norms-ab.json --out $o/old --stem bench-old --no-progress > $o/bench-old.log 2>&1
echo "old exit $?" >> $o/summary.txt
KTUNE_CACHE_DIR=$o/cache-new KTUNE_NCU_PICKS="0 1" timeout 220 scripts/limits-gpu.sh $o/new ./build/ktune ab/norms-ab.json
echo "new exit $?" >> $o/summary.txt
rm -rf $o/cache-*
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s25-4.tgz -C $OUT s25-4
