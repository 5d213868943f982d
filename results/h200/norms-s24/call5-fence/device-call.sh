#!/usr/bin/env bash
# session 24 device call 5: the ring with fence.proxy.async before each refill: the backward's GPU tests (now asserting the ring ran), two training shapes with PyTorch and ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 60 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*:MemoryBoundGpu.APlantedWrongLayerNormBackward*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
export KTUNE_CACHE_DIR=/tmp/c5-cache
KTUNE_NCU_PICKS="0" timeout 150 scripts/limits-gpu.sh $o/lnb2 ./build/ktune ab/lnb2.json
cat $o/lnb2/summary.txt; cut -c1-260 $o/lnb2/lnb2.md | grep "^|"; tail -1 $o/lnb2/logs/ncu-lnb2.log; grep -c incorrect $o/lnb2/results/bench-lnb2.tuning.csv
rm -f $o/*/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c5.tgz -C $OUT c5 && rm -rf $o
