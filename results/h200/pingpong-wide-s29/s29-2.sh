#!/usr/bin/env bash
# Session 29 call 2: ncu --set full of ktune's 128x176 fp8 tile (2-CTA cluster, staged epilogue,
# 5 stages: ab/w176.json pins it) against cuBLASLt's nvjet 176x128_128x5_1x2 at 3840^3 and
# 6656^3, where the same tile shape took 7% more cycles (call 1).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s29-2; mkdir -p $o
export KTUNE_CACHE_DIR=/tmp/s29-cache
for s in 3840 6656; do
  printf '{"name":"w176-%s","problems":[{"family":"gemm","M":%s,"N":%s,"K":%s,"dtype":"fp8","layout":"rc"}]}\n' $s $s $s $s > $o/w176-$s.json
  ./build/ktune bench $o/w176-$s.json --config ab/w176.json --out $o --stem tune-$s --no-progress > $o/tune-$s.log 2>&1
  echo "tune $s: exit $?" >> $o/summary.txt
  timeout 200 ncu --target-processes all --set full --import-source yes --clock-control none --cache-control all \
    -k 'regex:^(ktune_gemm_wgmma|nvjet)' --launch-count 2 -f -o $o/full-$s \
    ./build/ktune bench $o/w176-$s.json --config ab/w176.json --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
    --out $o --stem ncu-$s --no-progress > $o/ncu-$s.log 2>&1
  echo "ncu $s: exit $?" >> $o/summary.txt
  ncu --import $o/full-$s.ncu-rep --page details > $o/full-$s.txt 2>&1
  ncu --import $o/full-$s.ncu-rep --page source --csv --print-source sass > $o/source-$s.csv 2>&1
done
rm -f $o/*.ncu-rep; ls -la $o >> $o/summary.txt
tar -czf $OUT/s29-2.tgz -C $OUT s29-2
