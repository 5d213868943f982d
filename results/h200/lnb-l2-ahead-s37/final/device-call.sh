#!/usr/bin/env bash
# Session 37, call 4: L2_AHEAD [0, 2] as built in. The backward's GPU tests; scripts/limits-gpu.sh on
# ab/lnb-suite.json (ktune bench from an empty cache, PyTorch eager and torch.compile under
# do_bench, ncu of ktune's winners at 16384 x 4096 and 8192 x 8192); then 4023ee0's config (A) tuned
# for those two problems and ncu of its winners, the same way, as the independent timer of the gain.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/fin; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormBackward*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
t0=$SECONDS
KTUNE_NCU_PICKS="2 3" KTUNE_CACHE_DIR=/tmp/c-N timeout 300 scripts/limits-gpu.sh $o/new ./build/ktune ab/lnb-suite.json >> $o/summary.txt 2>&1
echo "limits-gpu (new): exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
cat > /tmp/two.json <<'J'
{"name": "lnb-two", "problems": [
  {"family": "layernorm_backward", "rows": 16384, "cols": 4096, "dtype": "bf16"},
  {"family": "layernorm_backward", "rows": 8192, "cols": 8192, "dtype": "fp16"}]}
J
t0=$SECONDS
timeout 60 ./build/ktune bench /tmp/two.json --config ab/lnb-old.json --cache-dir /tmp/c-A --out $o/old --stem bench-old --no-progress > $o/old.log 2>&1
echo "old config bench: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
# ncu of both configs' winners, the same command for each (the old config's cache needs --config).
for p in "16384 4096 bf16" "8192 8192 fp16"; do
  set -- $p
  printf '{"name": "one", "problems": [{"family": "layernorm_backward", "rows": %s, "cols": %s, "dtype": "%s"}]}\n' $1 $2 $3 > /tmp/one.json
  for v in "A:--config ab/lnb-old.json" "N:"; do
    n=${v%%:*}; c=${v#*:}
    [[ $((575 - SECONDS)) -lt 30 ]] && break
    timeout 40 ncu --set basic --clock-control none --cache-control all -k 'regex:^ktune_layernorm_bwd' --launch-count 5 \
      ./build/ktune bench /tmp/one.json $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 4 --rounds 1 --warmup-ms 1 \
      --out $o/ncu --stem ncu-$n-$1x$2 --no-progress > $o/ncu-$n-$1x$2-$3.txt 2>&1
    echo "ncu $n $1x$2 $3: exit $? ($(grep -E '^ +Duration' $o/ncu-$n-$1x$2-$3.txt | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
  done
done
gzip -f $o/*/*.tuning.csv $o/*/*/*.tuning.csv $o/*/*.json $o/*/*/*.json 2>/dev/null; rm -f $o/*/*.tuning.json.gz $o/*/*/*.tuning.json.gz
tar -czf $OUT/fin.tgz -C $OUT fin
