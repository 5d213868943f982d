#!/usr/bin/env bash
# Session 32, call 4: suites/nvfp4.json from empty caches by c79cc44's binary (ab/ktune-old.xz),
# then by this session's (the lean loop, AHEAD offered with one column tile and 4+ chunks a warp);
# PyTorch's cuBLAS under do_bench on both benches; ncu (basic) of the new winner and cuBLAS's
# kernel at 1 x 4096 x 14336; SASS of the final AHEAD 0/1 kernels at that shape.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
O=$OUT/r; mkdir -p $O/old $O/new
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for c in ab/cubins/*.cubin; do cuobjdump -sass $c > $O/$(basename $c .cubin).sass 2>&1; done
for b in old new; do
  bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
  SECONDS=0
  KTUNE_CACHE_DIR=/tmp/nv-$b timeout 215 $bin bench suites/nvfp4.json --out $O/$b --stem bench-nvfp4 --no-progress > $O/$b/bench-nvfp4.log 2>&1
  echo "$b bench exit $? in $SECONDS s" >> $O/summary.txt
done
for b in old new; do
  timeout 40 python3 scripts/torch_gemm_check.py $O/$b/bench-nvfp4.json --json $O/$b/torch-nvfp4.json > $O/$b/torch-nvfp4.log 2>&1
  echo "$b torch exit $?" >> $O/summary.txt
done
SECONDS=0
KTUNE_CACHE_DIR=/tmp/nv-new NCU_SET=basic timeout 90 scripts/ncu-details.sh build/ktune $O/ncu nv1 '{"family":"gemm_nvfp4","M":1,"N":4096,"K":14336,"dtype":"bf16"}' 'ktune_gemv_nvfp4|nvjet|gemv' 6 >> $O/summary.txt 2>&1
echo "ncu in $SECONDS s" >> $O/summary.txt
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
