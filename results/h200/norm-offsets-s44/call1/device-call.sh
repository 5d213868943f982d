#!/usr/bin/env bash
# Session 44, call 1: (1) session 43's v15 (LayerNorm backward's last-round dx stored after stage 2)
# against 7d521d0's kernel on the pinned config, ncu at 264 and 4000 rows and events at 4000;
# (2) the norms' w and b vectors of shifted rows shifted by a compile-time offset (N, ab/nnew's
# kernel beside copies of the rows configs) against HEAD's embedded kernel (A), turns A N A N,
# default search from empty caches, LayerNorm and RMSNorm suites of odd row lengths plus one control.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c1; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
OUT=$o timeout 120 bash ab/call8.sh > $o/v15.log 2>&1
echo "v15: exit $? in $SECONDS s" >> $o/summary.txt
t0=$SECONDS
BUDGET_S=250 TURN_S=70 scripts/experiments/config-ab.sh $o/ln ab/ln-suite.json A=configs/layernorm.json N=ab/nnew/layernorm.json
echo "ln ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/ln/summary.txt >> $o/summary.txt
t0=$SECONDS
BUDGET_S=170 TURN_S=45 scripts/experiments/config-ab.sh $o/rms ab/rms-suite.json A=configs/rmsnorm.json N=ab/nnew/rmsnorm.json
echo "rms ab: in $((SECONDS - t0)) s" >> $o/summary.txt; cat $o/rms/summary.txt >> $o/summary.txt
tar -czf $OUT/c1.tgz -C $OUT c1
