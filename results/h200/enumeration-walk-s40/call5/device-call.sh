#!/usr/bin/env bash
# Session 40, call 5: HEAD's binary after the last src/ and kernels/ changes (a comment, the
# order of ktune compile's counts, the walk's bottom): the block-scaled GPU test, then 4096^3 fp16
# and block-scaled fp8 4096 x 7168 x 16384 tuned from an empty cache against cuBLAS / cuBLASLt,
# and PyTorch's call of the same libraries under triton's do_bench on those results.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s40-5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
say() { echo "$*" >> $o/summary.txt; }
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*:Bench.*' > $o/gpu-tests.txt 2>&1
say "gpu tests: exit $? in $((SECONDS - t0)) s"
printf '{"name": "final", "problems": [{"family": "gemm", "M": 4096, "N": 4096, "K": 4096, "dtype": "fp16", "layout": "rr"}, {"family": "gemm", "M": 4096, "N": 7168, "K": 16384, "dtype": "fp8", "layout": "rc", "scaling": "block"}]}\n' > $o/final.json
t0=$SECONDS
timeout 150 ./build/ktune bench $o/final.json --cache-dir /tmp/c-final --out $o --stem bench-final --no-progress > $o/bench.log 2>&1
say "bench: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
timeout 60 python3 scripts/torch_gemm_check.py $o/bench-final.json --json $o/torch.json > $o/torch.log 2>&1
say "torch: exit $? in $((SECONDS - t0)) s"
gzip -f $o/*.json $o/*.tuning.csv 2>/dev/null; rm -f $o/*.tuning.json.gz
tar czf $OUT/s40-5.tgz -C $OUT s40-5
