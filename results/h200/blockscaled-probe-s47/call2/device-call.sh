#!/usr/bin/env bash
# Session 47, call 2: block-scaled consumers asking for the next stage's barrier right after
# issuing a k tile's wgmma (mbar_try), looking at the answer after the promotion (P), against
# HEAD's kernel (A, built in): the loop's SASS of both, then the same configurations in turns.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/ktune-only.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
k=./build/ktune
for v in head probe; do
  $k compile gemm --m 4096 --n 4096 --k 7168 --dtype fp8 --layout rc --scaling block --config ab/$v/pin128.json \
    --cache-dir /tmp/sass-$v --no-progress > /dev/null 2>&1
  f=$(find /tmp/sass-$v -name '*.cubin' | head -1)
  cuobjdump -sass "$f" > $r/$v.sass 2>&1 || /usr/local/cuda/bin/cuobjdump -sass "$f" > $r/$v.sass 2>&1
done
CONFIGS_FROM=ab/s39w.json BUDGET_S=480 TURN_S=150 scripts/experiments/config-ab.sh $r/ab ab/bs-probe.json \
  A=configs/gemm_wgmma.json P=ab/probe/gemm_wgmma.json
for t in A1 P1 A2 P2; do
  echo "== $t"; grep -E "^\[|  cublas |  ktune " $r/ab/$t.log
done > $r/ab-summary.txt 2>&1
gzip -f $r/*.sass
cp ab/call2.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
