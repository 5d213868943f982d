#!/usr/bin/env bash
# Session 33, call 3: NVFP4 prefill with the consumers decoding into shared memory (SMEM_DECODE 1,
# both wgmma operands from shared memory) against the register decode (0): the GPU test, then an
# exhaustive sweep of the same tiles with SMEM_DECODE 0 and 1 at four shapes, each candidate against
# cuBLAS in its rounds; PyTorch's cuBLAS under do_bench beside it.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 240 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
t0=$SECONDS
timeout 200 build/ktune sweep ab/s33-sd.json --exhaustive --retune --prune 3 --cache-dir /tmp/c-sd --out $O/sd --no-progress --top 40 > $O/sd.log 2>&1
echo "sweep exit $? in $((SECONDS - t0)) s" >> $O/summary.txt
ls $O/sd >> $O/summary.txt
for f in $O/sd/*.json; do timeout 60 python3 scripts/torch_gemm_check.py $f > $f.torch.log 2>&1; done
echo "total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
