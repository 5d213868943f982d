#!/usr/bin/env bash
# Session 31, call 2: gemv_nvfp4 AHEAD, new binary against old (HEAD 232ea26), problems alternated,
# each run from an empty cache of its own; then PyTorch's cuBLAS under do_bench on both benches;
# and LayerNorm backward at 3960 / 4000 / 4224 rows of 5001 (the rows' last partial iteration).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
O=$OUT/r; mkdir -p $O/new $O/old
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $O/gpu.txt
i=0
for p in 1-4096-4096 1-4096-14336 1-14336-4096 8-4096-4096 8-4096-14336 8-14336-4096; do
  if (( i % 2 == 0 )); then order="new old"; else order="old new"; fi
  for b in $order; do
    bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
    timeout 60 $bin bench ab/nv-$p.json --cache-dir /tmp/c-$b-$p --out $O/$b --stem $p --no-progress > $O/$b/$p.log 2>&1
    echo "$b $p exit $?" >> $O/summary.txt
  done
  i=$((i+1))
done
for b in new; do
  for f in $O/$b/*-*.json; do
    timeout 60 python3 scripts/torch_gemm_check.py $f > ${f%.json}.torch.log 2>&1
  done
done
for r in 3960 4000 4224; do
  timeout 45 build/ktune layernorm_backward --rows $r --cols 5001 --dtype fp16 --cache-dir /tmp/lnb-$r --out $O/lnb-$r --no-progress > $O/lnb-$r.log 2>&1
done
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
tar czf $OUT/r.tgz -C $OUT r
