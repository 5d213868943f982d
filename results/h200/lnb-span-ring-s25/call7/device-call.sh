#!/usr/bin/env bash
# Session 25 call 7: LayerNorm backward's ring for rows off 16-byte boundaries (spans): GPU tests,
# compute-sanitizer memcheck of ring candidates, the new binary's
# limits-gpu.sh (bench, PyTorch, ncu) at 4000 x 5001.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s25-7; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
cp ab/s25-7.sh ab/lnb5001.json ab/lb-ring.json $o/
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*:MemoryBoundGpu.APlantedWrongLayerNormBackward*' > $o/gpu-tests.log 2>&1; echo "gpu tests exit $?" >> $o/summary.txt
for shape in "1500 1023 fp16"; do set -- $shape
  KTUNE_CACHE_DIR=$o/cache-san timeout 120 compute-sanitizer --tool memcheck --target-processes all --error-exitcode 9 \
    ./build/ktune layernorm_backward --rows $1 --cols $2 --dtype $3 --config ab/lb-ring.json --no-progress --out $o/san-$1x$2 > $o/sanitizer-$1x$2-$3.log 2>&1
  echo "memcheck $shape exit $?" >> $o/summary.txt
done
KTUNE_CACHE_DIR=$o/cache-new KTUNE_NCU_PICKS="0" timeout 200 scripts/limits-gpu.sh $o/new ./build/ktune ab/lnb5001.json
echo "new exit $?" >> $o/summary.txt
rm -rf $o/cache-* $o/san-*
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s25-7.tgz -C $OUT s25-7
