#!/usr/bin/env bash
# Session 31, call 4: the final config (AHEAD pruned to one mma column tile and 4+ chunks a warp):
# the nvfp4 GPU test, suites/nvfp4.json by this binary and by 232ea26's from empty caches, and
# PyTorch's cuBLAS under do_bench beside the new bench.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
O=$OUT/r; mkdir -p $O/new $O/old
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $O/gpu.txt
timeout 90 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu test exit $?" >> $O/summary.txt
for b in new old; do
  bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
  t0=$SECONDS
  KTUNE_CACHE_DIR=/tmp/nv-$b timeout 230 $bin bench suites/nvfp4.json --out $O/$b --stem bench-nvfp4 --no-progress > $O/$b/bench-nvfp4.log 2>&1
  echo "bench $b exit $? in $((SECONDS-t0)) s" >> $O/summary.txt
done
timeout 60 python3 scripts/torch_gemm_check.py $O/new/bench-nvfp4.json --json $O/new/torch-nvfp4.json > $O/new/torch-nvfp4.log 2>&1
echo "torch exit $?" >> $O/summary.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
