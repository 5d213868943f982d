#!/usr/bin/env bash
# session 24 device call 2: w and b of shifted rows from two aligned vectors (norm.cu param_vec): the norm GPU tests, the
# forward norms on shifted rows with cuDNN / copy roof / PyTorch / ncu; ncu --set full of the LN forward and backward winners
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
(cd build && timeout 150 ./ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNorm*:MemoryBoundGpu.RmsNorm*:MemoryBoundGpu.APlantedWrongLayerNorm*:MemoryBoundGpu.AnRmsNorm*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
export KTUNE_CACHE_DIR=/tmp/c2-cache
KTUNE_NCU_PICKS="0 2" timeout 200 scripts/limits-gpu.sh $o/norms2 ./build/ktune ab/norms2.json
cat $o/norms2/summary.txt; cut -c1-220 $o/norms2/norms2.md | grep "^|"; tail -2 $o/norms2/logs/ncu-norms2.log
timeout 60 ab/ncu_full.sh ./build/ktune ab/ln5001.json 'ktune_norm_rows' $o/full ln5001
timeout 60 ./build/ktune bench ab/lnb8192.json --out $o/full/lnb --stem lnb --no-progress > $o/full/lnb.log 2>&1; echo "lnb bench $?"
timeout 60 ab/ncu_full.sh ./build/ktune ab/lnb8192.json 'ktune_layernorm_bwd' $o/full lnb8192
ls -la $o/full
rm -f $o/*/results/*.tuning.json; find $o -name '*.ncu-rep' -delete
tar -czf $OUT/c2.tgz -C $OUT c2 && rm -rf $o
