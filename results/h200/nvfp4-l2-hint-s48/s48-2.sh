#!/usr/bin/env bash
# Session 48, call 2: suites/nvfp4.json with the L2::256B weight loads (scripts/nvfp4-gpu.sh: the
# nvfp4 GPU test, the suite from an empty cache against cuBLAS bf16, PyTorch's call under do_bench,
# ktune's fp8 at M = 1, ncu basic of the M = 1 winners and cuBLAS's kernels).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
timeout 560 scripts/nvfp4-gpu.sh $O/nvfp4
echo "nvfp4-gpu exit $? in $SECONDS s" >> $O/summary.txt
cp ab/s48-2.sh $O/
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
