#!/usr/bin/env bash
# session 23 device call 2: softmax_ring — GPU tests, A/B against the staged kernels at 4000 x 50257,
# the vocabulary problems of suites/limits.json by the default search with PyTorch and ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o/ab
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 200 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.Softmax*:SoftmaxGpu.*:MemoryBoundGpu.APlantedWrongSoftmax*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -4 $o/gpu-tests.log
for d in fp16 bf16; do for c in configs/softmax_ring.json ab/split_staged_12.json configs/softmax_split_staged.json; do
  n=$(basename $c .json); log=$o/ab/$n-4000x50257-$d.log
  timeout 60 ./build/ktune softmax --rows 4000 --cols 50257 --dtype $d --config $c --exhaustive --cache-dir $o/ab/cache --no-progress > $log 2>&1
  echo "$n $d: exit $? $(grep -E '^ +1  ' $log | head -1 | tr -s ' ' | cut -c1-160)"; grep -E "^final" $log
done; done | tee $o/ab.txt
KTUNE_NCU_PICKS="1 2 3" timeout 250 scripts/limits-gpu.sh $o/vocab ./build/ktune ab/vocab.json
cat $o/vocab/summary.txt; cut -c1-220 $o/vocab/vocab.md; tail -4 $o/vocab/logs/ncu-vocab.log
rm -rf $o/ab/cache; rm -f $o/vocab/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c2.tgz -C $OUT c2 && rm -rf $o
