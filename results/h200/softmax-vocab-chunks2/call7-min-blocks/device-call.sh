#!/usr/bin/env bash
# session 23 device call 7: register softmax with MIN_BLOCKS — GPU tests, the vocabulary problems by the default search with PyTorch and ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c7; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 150 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.Softmax*:SoftmaxGpu.*:MemoryBoundGpu.APlantedWrongSoftmax*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
KTUNE_NCU_PICKS="1 2" timeout 200 scripts/limits-gpu.sh $o/vocab ./build/ktune ab/vocab.json
cat $o/vocab/summary.txt; cut -c1-200 $o/vocab/vocab.md | grep "^|"; tail -2 $o/vocab/logs/ncu-vocab.log
rm -f $o/vocab/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c7.tgz -C $OUT c7 && rm -rf $o
