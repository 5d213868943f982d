#!/usr/bin/env bash
# Session 48, call 4: the GPU tests of the kernels that include stream_load.cuh, with HEAD's
# binaries (the load's asm text written once), and a GEMV tuning at M = 1 that verifies every
# candidate it times.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
SECONDS=0
timeout 100 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-nvfp4.log 2>&1
echo "nvfp4 test exit $? in $SECONDS s" >> $O/summary.txt
SECONDS=0
timeout 150 build/ktune_gpu_tests --gtest_filter='EveryDtype/GemmKernelsRagged.*/bf16:EveryDtype/GemmKernelsRagged.*/fp16' > $O/gpu-ragged.log 2>&1
echo "ragged fp16/bf16 test exit $? in $SECONDS s" >> $O/summary.txt
SECONDS=0
KTUNE_CACHE_DIR=/tmp/kc timeout 80 build/ktune gemm --m 1 --n 4096 --k 4096 --dtype bf16 --layout rc --out $O/gemv --no-progress > $O/gemv.log 2>&1
echo "gemm 1x4096x4096 bf16 exit $? in $SECONDS s" >> $O/summary.txt
rm -f $O/gemv/*.json
cp ab/s48-4.sh $O/
tar czf $OUT/r.tgz -C $OUT r
