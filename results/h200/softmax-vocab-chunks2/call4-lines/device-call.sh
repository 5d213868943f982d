#!/usr/bin/env bash
# session 23 device call 4: bulk copies split at 128-byte lines — GPU tests, A/B old/new (twice),
# the vocabulary problems by the default search with PyTorch and ncu
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c4; mkdir -p $o/ab
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 150 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.Softmax*:SoftmaxGpu.*:MemoryBoundGpu.APlantedWrongSoftmax*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
for round in 1 2; do for v in old new; do
  k=kernels/softmax.cu; [[ $v == old ]] && k=ab/old_softmax2/softmax.cu
  for p in "ring 50257 fp16" "ring 50257 bf16" "split_staged 50257 fp16" "ring 8201 fp16"; do
    set -- $p
    log=$o/ab/$v-$1-4000x$2-$3-r$round.log
    timeout 60 ./build/ktune softmax --rows 4000 --cols $2 --dtype $3 --config configs/softmax_$1.json --kernel $k \
      --cache-dir $o/ab/cache-$v-r$round --no-progress > $log 2>&1
    echo "$v r$round $p: exit $? $(grep -E '^ +1  ' $log | head -1 | tr -s ' ' | cut -c1-120) | $(grep -E 'copy roof' $log | head -1 | tr -s ' ' | cut -c60-90)"
  done
done; done | tee $o/ab.txt
KTUNE_NCU_PICKS="1 2" timeout 200 scripts/limits-gpu.sh $o/vocab ./build/ktune ab/vocab.json
cat $o/vocab/summary.txt; cut -c1-200 $o/vocab/vocab.md | grep "^|"; tail -2 $o/vocab/logs/ncu-vocab.log
rm -rf $o/ab/cache-*; rm -f $o/vocab/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c4.tgz -C $OUT c4 && rm -rf $o
