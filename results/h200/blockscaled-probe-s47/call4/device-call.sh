#!/usr/bin/env bash
# Session 47, call 4: suites/blockscaled.json whole on the committed kernel (the early barrier
# probe where the TMA thread copies the scales), from an empty cache, PyTorch's _scaled_mm under
# do_bench in the same call.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
timeout 540 scripts/blockscaled-gpu.sh $r/suite
gzip -f $r/suite/*.json $r/suite/*.tuning.csv 2>/dev/null
cp ab/call4.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
