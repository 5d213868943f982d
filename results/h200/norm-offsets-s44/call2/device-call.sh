#!/usr/bin/env bash
# Session 44, call 2: (1) suites/limits.json's 18 forward problems at HEAD with scripts/limits-gpu.sh,
# now that scripts/torch_examples.py resets dynamo's cache before each problem (c76973c), so that
# torch.compile is measured on the 1024 x 128256 and 151936 softmax rows too; (2) ncu's full set and
# SASS stalls of three pinned norm configurations at 4096 x 5001 fp16: LayerNorm and RMSNorm with
# 16-byte vectors and 128 threads a row (LayerNorm ~20% slower there), and LayerNorm's winner.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" > $o/versions.txt 2>&1
KTUNE_CACHE_DIR=/tmp/c2 timeout 420 scripts/limits-gpu.sh $o/fwd ./build/ktune ab/limits-forward.json > $o/summary.txt 2>&1
echo "limits-gpu: exit $? in $SECONDS s" >> $o/summary.txt
gzip -f $o/*/*/*.tuning.csv $o/*/*/*.json 2>/dev/null; rm -f $o/*/*/*.tuning.json.gz
mkdir -p $o/ncu
for p in layernorm-vb16-rt128 rmsnorm-vb16-rt128 layernorm-vb8-rt256; do
  f=${p%%-*}; t0=$SECONDS
  timeout 60 ./build/ktune bench ab/pins/${f}5001.json --config ab/pins/$p.json --cache-dir /tmp/p-$p --out $o/ncu --stem ev-$p --no-progress > $o/ncu/ev-$p.log 2>&1
  timeout 90 ncu --target-processes all --set full --import-source no --clock-control none --cache-control all -k 'regex:^ktune_norm_rows' --launch-count 1 -f -o /tmp/$p \
    ./build/ktune bench ab/pins/${f}5001.json --config ab/pins/$p.json --cache-dir /tmp/p-$p --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
    --out /tmp/pn-$p --stem n --no-progress > $o/ncu/$p.log 2>&1
  echo "ncu $p: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
  ncu --import /tmp/$p.ncu-rep --page details > $o/ncu/$p.txt 2>&1
  ncu --import /tmp/$p.ncu-rep --page source --csv --print-source sass > /tmp/$p.sass.csv 2> $o/ncu/$p.sass.err
  python3 scripts/experiments/ncu_stalls.py /tmp/$p.sass.csv > $o/ncu/$p.stalls.txt 2>&1
done
rm -f $o/ncu/*.json
gzip -f $o/ncu/*.csv 2>/dev/null
tar -czf $OUT/c2.tgz -C $OUT c2
