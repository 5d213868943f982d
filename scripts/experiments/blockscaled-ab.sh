#!/usr/bin/env bash
# Kernel variants of gemm_wgmma's block-scaled fp8 path side by side in one device call: each
# variant tuned by the default guided search (its own empty cache) at a few of suites/blockscaled.json's
# shapes, against cuBLASLt's block-scaled matmul in the same rounds, so a variant computing wrong
# answers shows as candidates ruled out and a faster one as a better ratio; then ncu's durations
# of the committed kernel's winner and cuBLASLt's kernel at the first shape (the second timer).
#   scripts/experiments/blockscaled-ab.sh OUTDIR [KTUNE]
# VARIANTS: "kernel" (kernels/gemm_wgmma.cu) and the names of ab/NAME.cu files (ab/ is
# git-ignored: carry it), each optionally with @CONFIG, a sweep config other than
# configs/gemm_wgmma.json (e.g. one tunable narrowed to the values under test); SHAPES: "MxNxK ...".
set -uo pipefail
out=${1:?usage: scripts/experiments/blockscaled-ab.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
variants=${VARIANTS:-kernel}
shapes=${SHAPES:-4096x4096x7168 4096x2112x7168 4096x7168x2048 128x7168x2048 64x2112x7168}
for spec in $variants; do
  variant=${spec%%@*} config=configs/gemm_wgmma.json
  [[ $spec == *@* ]] && config=${spec#*@} && variant=$variant-$(basename "$config" .json)
  kernel=kernels/gemm_wgmma.cu
  [[ ${spec%%@*} != kernel ]] && kernel=ab/${spec%%@*}.cu
  for shape in $shapes; do
    IFS=x read -r m n k <<< "$shape"
    log="$out/$variant-$shape.log"
    timeout 200 "$ktune" gemm --m "$m" --n "$n" --k "$k" --dtype fp8 --layout rc --scaling block \
      --config "$config" --kernel "$kernel" --cache-dir "$out/cache-$variant" \
      --out "$out/results-$variant" --no-progress > "$log" 2>&1
    echo "$variant $shape: exit $?"
    grep -E "^   1  |^ ref  cublas|^candidates:" "$log" | head -4
  done
done
# ncu: the committed kernel's winner at the first shape and cuBLASLt's kernel (caches flushed).
# ncu-details.sh tunes through `ktune bench`, over every gemm config (another cache key than the
# A/B's single config), so the kernel it profiles is bench's winner, which may differ from the
# A/B's; the earlier kernel's durations are in the call that measured it.
IFS=x read -r m n k <<< "${shapes%% *}"
problem="{\"family\":\"gemm\",\"M\":$m,\"N\":$n,\"K\":$k,\"dtype\":\"fp8\",\"layout\":\"rc\",\"scaling\":\"block\"}"
export KTUNE_CACHE_DIR=$out/cache-kernel NCU_SET=basic
scripts/ncu-details.sh "$ktune" "$out/ncu" ktune "$problem" '^ktune_gemm_wgmma' 1
scripts/ncu-details.sh "$ktune" "$out/ncu" cublaslt "$problem" 'nvjet' 1
grep -h -E "Duration" "$out/ncu/ktune.txt" "$out/ncu/cublaslt.txt"
