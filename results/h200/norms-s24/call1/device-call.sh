#!/usr/bin/env bash
# session 24 device call 1: GPU tests (softmax MIN_BLOCKS 1 and the budget test from last session, the norms'); norms with MIN_BLOCKS / ONE_ROUND / FIT_BLOCKS against cuDNN, the copy roof, PyTorch, ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 240 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*:SoftmaxGpu.*:Bench.*:Search.*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -4 $o/gpu-tests.log
KTUNE_NCU_PICKS="0 1 4 6" timeout 300 scripts/limits-gpu.sh $o/norms ./build/ktune ab/norms.json
cat $o/norms/summary.txt; cut -c1-220 $o/norms/norms.md | grep "^|"; tail -4 $o/norms/logs/ncu-norms.log
rm -f $o/norms/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c1.tgz -C $OUT c1 && rm -rf $o
