#!/usr/bin/env bash
# Session 31, call 5: suites/nvfp4.json with the final config (AHEAD only with one column tile,
# 16 warps along K and 4+ chunks a warp) from an empty cache, PyTorch's cuBLAS under do_bench.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $O/gpu.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/nv-final timeout 230 build/ktune bench suites/nvfp4.json --out $O --stem bench-nvfp4 --no-progress > $O/bench-nvfp4.log 2>&1
echo "bench exit $? in $((SECONDS-t0)) s" >> $O/summary.txt
timeout 60 python3 scripts/torch_gemm_check.py $O/bench-nvfp4.json --json $O/torch-nvfp4.json > $O/torch-nvfp4.log 2>&1
echo "torch exit $?" >> $O/summary.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
