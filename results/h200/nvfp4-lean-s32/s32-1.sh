#!/usr/bin/env bash
# Session 32, call 1: gemv_nvfp4's lean loop (pointers stepping K_WARPS chunks, rows past N and M
# clamped, predicates only on a last chunk K ends inside), new binary against old (c79cc44),
# problems alternated, each from an empty cache of its own; the GPU test; SASS of the new kernels.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
O=$OUT/r; mkdir -p $O/new $O/old
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $O/gpu.txt
for c in ab/cubins/*.cubin; do cuobjdump -sass $c > $O/$(basename $c .cubin).sass 2>&1; done
SECONDS=0
timeout 150 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > $O/gpu-tests-nvfp4.txt 2>&1
echo "gpu test exit $? in $SECONDS s" >> $O/summary.txt
i=0
for p in 1-4096-14336 1-4096-4096 1-14336-4096 8-4096-14336 8-4096-4096 8-14336-4096; do
  if (( i % 2 == 0 )); then order="new old"; else order="old new"; fi
  for b in $order; do
    bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
    SECONDS=0
    timeout 60 $bin bench ab/nv-$p.json --cache-dir /tmp/c-$b-$p --out $O/$b --stem $p --no-progress > $O/$b/$p.log 2>&1
    echo "$b $p exit $? in $SECONDS s" >> $O/summary.txt
  done
  i=$((i+1))
done
for f in $O/new/*-*.json; do
  case $f in *tuning*) continue;; esac
  timeout 60 python3 scripts/torch_gemm_check.py $f > ${f%.json}.torch.log 2>&1
done
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
