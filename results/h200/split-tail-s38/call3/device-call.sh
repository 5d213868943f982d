#!/usr/bin/env bash
# Session 38, call 3: the TF32 squares of suites/large.json (2048-8192 by 256, layout rr) with the
# split tail in the built-in config, from an empty cache, against cuBLAS in ktune's rounds, then
# PyTorch's cuBLAS under do_bench in the same call (scripts/large-gpu.sh).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/large; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
timeout 590 scripts/large-gpu.sh $o fp32
gzip -f $o/*.tuning.csv $o/bench-*.json 2>/dev/null; rm -f $o/*.tuning.json*
tar -czf $OUT/large.tgz -C $OUT large
