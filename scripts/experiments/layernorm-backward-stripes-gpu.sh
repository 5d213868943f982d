#!/usr/bin/env bash
# Issue 37, session 18: LayerNorm backward with its dW/dB finish in stripes (each stripe of
# columns rounded into dW/dB by the block that adds it last, after one fence for all of a block's
# atomics) and register partials (REG_PARTIALS), in one device call:
#  - the backward's GPU tests (every candidate of the default sweep against the reference on
#    ragged shapes; the planted fault);
#  - exhaustive sweeps at 4000 x 5001 and 8192 x 8192 fp16 of this kernel and of the kernel and
#    config before (ab/, made on the development machine before the call:
#      mkdir -p ab && git show 6a6e94c:kernels/layernorm_backward.cu > ab/layernorm_backward_old.cu
#      git show 6a6e94c:configs/layernorm_backward.json > ab/layernorm_backward_old.json
#    ; pass AB=0 where ab/ is absent);
#  - suites/limits.json's backward problems tuned from an empty cache against the copy roof, with
#    PyTorch eager and torch.compile and ncu's durations of the 4000 x 5001 winner
#    (scripts/limits-gpu.sh).
#   scripts/experiments/layernorm-backward-stripes-gpu.sh OUTDIR      (writes OUTDIR/lnb)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/layernorm-backward-stripes-gpu.sh OUTDIR}/lnb
mkdir -p "$o"
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*:MemoryBoundGpu.APlantedWrongLayerNormBackward*' \
  --gtest_brief=1 > "$o/gpu-tests.log" 2>&1
echo "gpu tests: $?" | tee -a "$o/summary.txt"
for shape in "4000 5001" "8192 8192"; do
  set -- $shape
  if [[ ${AB:-1} == 1 ]]; then
    KTUNE_CACHE_DIR=/tmp/ab-old timeout 100 ./build/ktune layernorm_backward --rows $1 --cols $2 --dtype fp16 --exhaustive --retune \
      --top 12 --config ab/layernorm_backward_old.json --kernel ab/layernorm_backward_old.cu --out "$o/old" --no-progress \
      > "$o/exhaustive-before-$1x$2.log" 2>&1
    echo "exhaustive before $1 x $2: $?" | tee -a "$o/summary.txt"
  fi
  KTUNE_CACHE_DIR=/tmp/ab-new timeout 120 ./build/ktune layernorm_backward --rows $1 --cols $2 --dtype fp16 --exhaustive --retune \
    --top 40 --out "$o/new" --no-progress > "$o/exhaustive-$1x$2.log" 2>&1
  echo "exhaustive $1 x $2: $?" | tee -a "$o/summary.txt"
done
python3 scripts/suite_part.py suites/limits.json /tmp/lnb.json --name limits-lnb --family layernorm_backward
KTUNE_NCU_PICKS="3" timeout 300 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/lnb.json
