#!/usr/bin/env bash
# Session 43, call 7: suites/limits.json's forward problems (softmax and the norms, 18 of 22; the
# four backward problems ran in call 4) at 0b981ff with scripts/limits-gpu.sh: ktune bench from an
# empty cache against cuDNN and the copy roof, PyTorch eager and torch.compile under do_bench in
# the same call.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c7; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
KTUNE_CACHE_DIR=/tmp/c7 timeout 300 scripts/limits-gpu.sh $o/fwd ./build/ktune ab/limits-forward.json > $o/summary.txt 2>&1
echo "limits-gpu: exit $? in $SECONDS s" >> $o/summary.txt
gzip -f $o/*/*/*.tuning.csv $o/*/*/*.json 2>/dev/null; rm -f $o/*/*/*.tuning.json.gz
tar -czf $OUT/c7.tgz -C $OUT c7
