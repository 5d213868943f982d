#!/usr/bin/env bash
# LayerNorm backward's categories of suites/limits.json on the GPU, in one device call: the bench
# (tuned from an empty cache, against the copy roof), PyTorch eager and torch.compile beside it
# and the page (scripts/limits-gpu.sh on the family's part of the suite), ncu's durations for
# 32768 x 1024, the GPU tests of the row-wise kernels (kernels/row_reduce.cuh is theirs too), and
# the exhaustive sweeps at 32768 x 1024 bf16, 4000 x 5001 fp16 and 8192 x 8192 fp16. Writes OUTDIR/lnb; run with OUTDIR=$OUT, then tar.
#   scripts/experiments/layernorm-backward-gpu.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/layernorm-backward-gpu.sh OUTDIR}/lnb
mkdir -p "$o"
python3 scripts/suite_part.py suites/limits.json /tmp/lnb.json --name limits-lnb --family layernorm_backward
KTUNE_NCU_PICKS="2" timeout 330 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/lnb.json
timeout 300 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*:SoftmaxGpu.*' --gtest_brief=1 > "$o/gpu-tests.log" 2>&1
echo "gpu tests: $?" | tee -a "$o/summary.txt"
for p in "32768 1024 bf16" "4000 5001 fp16" "8192 8192 fp16"; do
  set -- $p
  KTUNE_CACHE_DIR=/tmp/lnb-ex timeout 90 ./build/ktune layernorm_backward --rows "$1" --cols "$2" --dtype "$3" --exhaustive \
    --retune --top 30 --out "$o" --no-progress > "$o/exhaustive-$1x$2.log" 2>&1
  echo "exhaustive $1 x $2: $?" | tee -a "$o/summary.txt"
done
