#!/usr/bin/env bash
# Session 44, call 3: suites/limits.json's five LayerNorm backward problems at HEAD with
# scripts/limits-gpu.sh, torch.compile now from a fresh dynamo cache a problem (c76973c).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
KTUNE_CACHE_DIR=/tmp/c3 timeout 300 scripts/limits-gpu.sh $o/bwd ./build/ktune ab/lnb-suite.json > $o/summary.txt 2>&1
echo "limits-gpu: exit $? in $SECONDS s" >> $o/summary.txt
gzip -f $o/*/*/*.tuning.csv $o/*/*/*.json 2>/dev/null; rm -f $o/*/*/*.tuning.json.gz
tar -czf $OUT/c3.tgz -C $OUT c3
