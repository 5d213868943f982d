#!/usr/bin/env bash
# Session 42, call 6 (03d1804's binary): where the 2-CTA-cluster version of the fp16 winner
# (128 x 256, 2 consumers, EPILOGUE 2, 4 stages) loses its 2.2% of cycles at 2816^3: ncu's full
# set with per-instruction stall samples, CLUSTER_M 1 against 2.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
for v in cm1 cm2; do
  timeout 120 ncu --set full --clock-control none --cache-control all -k 'regex:^ktune_gemm_wgmma' --launch-skip 2 --launch-count 1 -f -o $r/$v \
    build/ktune bench ab/pin-2816.json --configs-from ab/pin-$v.json --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/n-$v --stem x --no-progress > $r/$v-ncu.log 2>&1
  echo "ncu $v: $?" | tee -a $r/summary.txt
  ncu --import $r/$v.ncu-rep --page source --csv --print-source sass > $r/$v.sass.csv 2> $r/$v.sass.err
  python3 scripts/experiments/ncu_stalls.py $r/$v.sass.csv 70 > $r/$v.stalls.txt 2>&1
  ncu --import $r/$v.ncu-rep --page details > $r/$v.txt 2>&1
  gzip -9 $r/$v.sass.csv; rm -f $r/$v.ncu-rep
done
cp ab/call6-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
