#!/usr/bin/env bash
# Session 36, call 2: the nvfp4 GPU test (with the bulk-copy decode config), then the bulk config
# alone against the register config alone on 7 decode problems (same binary, empty caches, the
# bulk config first), PyTorch's cuBLAS under do_bench, and ncu (basic) of the default search's
# winner and cuBLAS's kernel at 1 x 4096 x 14336.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O/reg $O/bulk
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
SECONDS=0
timeout 200 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4WeightsEveryCandidateAndMisreadFormatsRejected' > $O/gpu-tests.txt 2>&1
echo "nvfp4 test exit $? in $SECONDS s" >> $O/summary.txt
for v in bulk reg; do
  cfg=configs/gemm_nvfp4_bulk.json; [[ $v == reg ]] && cfg=configs/gemm_nvfp4.json
  SECONDS=0
  timeout 110 build/ktune bench ab/nv7.json --config $cfg --cache-dir /tmp/c-$v --out $O/$v --stem bench-nv7 --no-progress > $O/$v/bench-nv7.log 2>&1
  echo "$v bench exit $? in $SECONDS s" >> $O/summary.txt
done
timeout 45 python3 scripts/torch_gemm_check.py $O/bulk/bench-nv7.json --json $O/bulk/torch-nv7.json > $O/bulk/torch-nv7.log 2>&1
echo "torch exit $?" >> $O/summary.txt
SECONDS=0
KTUNE_CACHE_DIR=/tmp/c-default NCU_SET=basic timeout 100 scripts/ncu-details.sh build/ktune $O/ncu nv1 '{"family":"gemm_nvfp4","M":1,"N":4096,"K":14336,"dtype":"bf16"}' 'ktune_gemv_nvfp4|nvjet|gemv' 6 >> $O/summary.txt 2>&1
echo "ncu in $SECONDS s" >> $O/summary.txt
rm -f $O/ncu/*.ncu-rep
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
