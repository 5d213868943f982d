#!/usr/bin/env bash
# Session 30 call 1: the guided search's opening, one candidate a region in its second half (new)
# against predicted order alone (old, HEAD c6adfa4), on eight fp8 squares, each tuned from an empty
# cache of its own, the two binaries alternating problem by problem (which goes first alternates
# too); each run times cuBLASLt in its own rounds. Then PyTorch's call of cuBLASLt under do_bench
# on each results file of the new binary (the independent timer).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
o=$OUT/s30-1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
i=0
for s in 3840 5120 4864 6144 3072 5376 4352 6400; do
  if (( i++ % 2 )); then order="old new"; else order="new old"; fi
  for b in $order; do
    bin=./build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
    t0=$SECONDS
    timeout 50 $bin gemm --m $s --dtype fp8 --layout rc --cache-dir /tmp/c-$b-$s --out $o/$b-$s --no-progress > $o/$b-$s.log 2>&1
    echo "$b $s: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
    grep -E "^search:|^   1  |^ ref  " $o/$b-$s.log >> $o/summary.txt
  done
done
for s in 3840 5120 4864 6144 3072 5376 4352 6400; do
  f=$(ls $o/new-$s/*.json 2>/dev/null | head -1)
  [[ -n $f ]] && timeout 30 python3 scripts/torch_gemm_check.py $f >> $o/torch.txt 2>&1
done
for d in $o/*-*/; do gzip -f $d/*.csv $d/*.json 2>/dev/null; done
tar -czf $OUT/s30-1.tgz -C $OUT s30-1
