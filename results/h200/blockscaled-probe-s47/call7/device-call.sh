#!/usr/bin/env bash
# Session 47, call 7: block-scaled consumers releasing the stage after the promotion (R, as
# cuBLASLt's loop does) against the committed order, release before the promotion (A), on call 4's
# winners at M = 4096, turns A R A R.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
CONFIGS_FROM=ab/c4w.json BUDGET_S=250 TURN_S=60 scripts/experiments/config-ab.sh $r/ab ab/bs4096.json \
  A=configs/gemm_wgmma.json R=ab/rel/gemm_wgmma.json
for t in A1 R1 A2 R2; do echo "== $t"; grep -E "^\[|  cublas |  ktune " $r/ab/$t.log; done > $r/ab-summary.txt 2>&1
cp ab/call7.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
