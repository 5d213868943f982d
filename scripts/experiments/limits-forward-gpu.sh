#!/usr/bin/env bash
# The forward families' part of suites/limits.json (softmax, LayerNorm, RMSNorm) on the GPU in one
# device call, after a change to what their kernels share (kernels/row_reduce.cuh): the bench from
# an empty cache against cuDNN and the copy roof, PyTorch eager and torch.compile beside it, the
# page (scripts/limits-gpu.sh). Writes OUTDIR/fwd.
#   scripts/experiments/limits-forward-gpu.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/limits-forward-gpu.sh OUTDIR}/fwd
mkdir -p "$o"
python3 scripts/suite_part.py suites/limits.json /tmp/fwd.json --name limits-forward --family softmax,layernorm,rmsnorm
timeout 560 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/fwd.json
