#!/usr/bin/env bash
# session 24 device call 3: LayerNorm backward's STAGES ring: its GPU tests, the training shapes against the copy roof, PyTorch and ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 100 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*:MemoryBoundGpu.APlantedWrongLayerNormBackward*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
export KTUNE_CACHE_DIR=/tmp/c3-cache
KTUNE_NCU_PICKS="0 1" timeout 240 scripts/limits-gpu.sh $o/lnb ./build/ktune ab/lnb.json
cat $o/lnb/summary.txt; cut -c1-260 $o/lnb/lnb.md | grep "^|"; tail -2 $o/lnb/logs/ncu-lnb.log; grep -c incorrect $o/lnb/results/bench-lnb.tuning.csv
rm -f $o/*/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c3.tgz -C $OUT c3 && rm -rf $o
