#!/usr/bin/env bash
# Session 30 call 3, binaries of main at 30fb2b8 (new) and c6adfa4 (old): LayerNorm backward's GPU
# test on main's kernel; 4000 x 5001 fp16 and bf16 benched again old/new/old/new from empty caches
# (the vectors-first load order); then the search's opening on fp16 rr squares, new and old
# binaries alternating problem by problem from empty caches (as call 1 for fp8), and PyTorch's
# call of cuBLAS under do_bench on the new results.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
o=$OUT/s30-3; mkdir -p $o/lnb $o/fp16
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 120 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for run in old1 new1 old2 new2; do
  bin=./build/ktune; [[ $run == old* ]] && bin=/tmp/ktune-old
  for d in fp16 bf16; do
    timeout 60 $bin layernorm_backward --rows 4000 --cols 5001 --dtype $d --cache-dir /tmp/lnb-$run-$d --out $o/lnb/$run-$d --no-progress > $o/lnb/$run-$d.log 2>&1
    echo "lnb $run $d: exit $?" >> $o/summary.txt
    grep -E "^   1  |^ ref  " $o/lnb/$run-$d.log >> $o/summary.txt
  done
done
i=0
for s in 2560 3072 3584 4352 5120 5632 6400 7168; do
  if (( i++ % 2 )); then order="old new"; else order="new old"; fi
  for b in $order; do
    bin=./build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
    t0=$SECONDS
    timeout 50 $bin gemm --m $s --dtype fp16 --layout rr --cache-dir /tmp/c16-$b-$s --out $o/fp16/$b-$s --no-progress > $o/fp16/$b-$s.log 2>&1
    echo "$b $s: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
    grep -E "^search:|^   1  |^ ref  " $o/fp16/$b-$s.log >> $o/summary.txt
  done
done
for s in 2560 3072 3584 4352 5120 5632 6400 7168; do
  f=$(ls $o/fp16/new-$s/*.json 2>/dev/null | head -1)
  [[ -n $f ]] && timeout 30 python3 scripts/torch_gemm_check.py $f >> $o/torch.txt 2>&1
done
find $o -name '*.json' -o -name '*.csv' | xargs gzip -f 2>/dev/null
tar -czf $OUT/s30-3.tgz -C $OUT s30-3
