#!/usr/bin/env bash
# Session 32, call 6: after the load helper's cleanup (same machine code), the nvfp4 GPU test and
# 1 x 4096 x 14336 benched against cuBLAS, PyTorch's cuBLAS under do_bench beside it.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version --format=csv > $O/gpu.txt
SECONDS=0
timeout 200 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
for p in 1-4096-14336 1-14336-4096; do
  timeout 60 build/ktune bench ab/nv-$p.json --cache-dir /tmp/c-$p --out $O --stem $p --no-progress > $O/$p.log 2>&1
  echo "bench $p exit $?" >> $O/summary.txt
  timeout 60 python3 scripts/torch_gemm_check.py $O/$p.json > $O/$p.torch.log 2>&1
done
tar czf $OUT/r.tgz -C $OUT r
