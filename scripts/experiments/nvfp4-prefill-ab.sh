#!/usr/bin/env bash
# Kernel variants of gemm_nvfp4_wgmma side by side in one device call: each variant tuned over every
# valid candidate of configs/gemm_nvfp4_wgmma.json (--exhaustive, its own empty cache) at a few
# prefill shapes, so that a variant computing wrong answers shows as candidates ruled out and a
# faster one as a better ratio against cuBLAS (timed in the same rounds); then ncu's durations of
# each variant in the winning configuration at 4096^3 (nvfp4-prefill-diag.sh) as the second timer.
#   scripts/experiments/nvfp4-prefill-ab.sh OUTDIR [KTUNE]
# VARIANTS: "kernel" (kernels/gemm_nvfp4_wgmma.cu) and the names of ab/NAME.cu files (ab/ is
# git-ignored: carry it); SHAPES: "MxNxK ...".
set -uo pipefail
out=${1:?usage: scripts/experiments/nvfp4-prefill-ab.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
mkdir -p "$out"
variants=${VARIANTS:-kernel}
for variant in $variants; do
  kernel=kernels/gemm_nvfp4_wgmma.cu
  [[ $variant != kernel ]] && kernel=ab/$variant.cu
  for shape in ${SHAPES:-4096x4096x4096 1024x14336x4096 256x4096x4096}; do
    IFS=x read -r m n k <<< "$shape"
    log="$out/$variant-$shape.log"
    timeout 240 "$ktune" gemm_nvfp4 --m "$m" --n "$n" --k "$k" --config configs/gemm_nvfp4_wgmma.json \
      --kernel "$kernel" --exhaustive --cache-dir "$out/cache-$variant" --out "$out/results-$variant" \
      --no-progress > "$log" 2>&1
    echo "$variant $shape: exit $?"
    grep -E "^   1  |^ ref  cublas|^candidates:|final:|rejected|incorrect" "$log" | head -8
  done
done
VARIANTS="$variants" timeout 200 scripts/experiments/nvfp4-prefill-diag.sh "$out/ncu" "$ktune"
