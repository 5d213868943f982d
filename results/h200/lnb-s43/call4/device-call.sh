#!/usr/bin/env bash
# Session 43, call 4: LayerNorm backward with its shared partials in 16-byte accesses, as committed
# to the working tree (N), against HEAD's kernel (A, ab/old). The backward's GPU tests;
# scripts/limits-gpu.sh on ab/lnb-suite.json (ktune bench from an empty cache against the copy roof,
# PyTorch eager and torch.compile under do_bench in the same call); A's kernel tuned the same way;
# ncu of both winners at 4000 x 5001 fp16 and bf16, the same command for each.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/fin; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_CACHE_DIR=/tmp/c-N timeout 300 scripts/limits-gpu.sh $o/new ./build/ktune ab/lnb-suite.json >> $o/summary.txt 2>&1
echo "limits-gpu (new): exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
timeout 150 ./build/ktune bench ab/lnb-suite.json --config ab/old/lnb.json --cache-dir /tmp/c-A --out $o/old --stem bench-old --no-progress > $o/old.log 2>&1
echo "old kernel bench: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for d in fp16 bf16; do
  printf '{"name": "one", "problems": [{"family": "layernorm_backward", "rows": 4000, "cols": 5001, "dtype": "%s"}]}\n' $d > /tmp/one.json
  for v in "A:--config ab/old/lnb.json" "N:"; do
    n=${v%%:*}; c=${v#*:}
    [[ $((570 - SECONDS)) -lt 30 ]] && break
    timeout 40 ncu --set basic --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 \
      ./build/ktune bench /tmp/one.json $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 4 --rounds 1 --warmup-ms 1 \
      --out $o/ncu --stem ncu-$n-$d --no-progress > $o/ncu-$n-$d.txt 2>&1
    echo "ncu $n $d: exit $? ($(grep -E '^ +Duration' $o/ncu-$n-$d.txt | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
  done
done
gzip -f $o/*/*.tuning.csv $o/*/*/*.tuning.csv $o/*/*.json $o/*/*/*.json 2>/dev/null; rm -f $o/*/*.tuning.json.gz $o/*/*/*.tuning.json.gz
tar -czf $OUT/fin.tgz -C $OUT fin
