#!/usr/bin/env bash
# Why block-scaled fp8 trails cuBLASLt at large M (results/h100/blockscaled-fp8: 0.74x at
# 4096 x 4096 x 7168, SM throughput 53% against 76%): ncu's full section set and per-instruction
# warp stalls (the source page, SASS) for ktune's tuned winner and cuBLASLt's kernel, block-scaled
# and per-tensor at the same shape, so the cost of the scales shows apart from the kernel's. Also
# the few-row norms of issue 37, which are cheap to add: ktune's winner only (ncu-details.sh's
# default regex misses cuDNN's ln_tma_fwd_kernel; the tuning logs time cuDNN beside it).
#   [SHAPE=MxNxK] [BLOCK_ONLY=1] scripts/experiments/blockscaled-diag.sh OUTDIR [KTUNE]
# SHAPE (default 4096x4096x7168) picks the GEMM; BLOCK_ONLY=1 profiles the block-scaled pair
# alone (no per-tensor pair, no norms), as for results/h200/blockscaled-ed30653/diag-4096x7168x16384
# (SHAPE=4096x7168x16384).
set -uo pipefail
out=${1:?usage: [SHAPE=MxNxK] [BLOCK_ONLY=1] scripts/experiments/blockscaled-diag.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=$out/cache
IFS=x read -r m n k <<< "${SHAPE:-4096x4096x7168}"
shape="\"M\":$m,\"N\":$n,\"K\":$k,\"dtype\":\"fp8\",\"layout\":\"rc\""
block="{\"family\":\"gemm\",$shape,\"scaling\":\"block\"}"
tensor="{\"family\":\"gemm\",$shape}"
export NCU_SET=full
names="block-ktune block-cublaslt"
scripts/ncu-details.sh "$ktune" "$out" block-ktune "$block" '^ktune_gemm_wgmma' 1
scripts/ncu-details.sh "$ktune" "$out" block-cublaslt "$block" 'nvjet' 1
if [[ ${BLOCK_ONLY:-0} != 1 ]]; then
  names+=" tensor-ktune tensor-cublaslt"
  scripts/ncu-details.sh "$ktune" "$out" tensor-ktune "$tensor" '^ktune_gemm_wgmma' 1
  scripts/ncu-details.sh "$ktune" "$out" tensor-cublaslt "$tensor" 'nvjet' 1
fi
for name in $names; do
  [[ -f $out/$name.ncu-rep ]] || continue
  ncu --import "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/$name.sass.csv" 2> "$out/$name.sass.err"
  python3 scripts/experiments/ncu_stalls.py "$out/$name.sass.csv" > "$out/$name.stalls.txt" 2>&1
  echo "$name: source page exit $?, $(wc -l < "$out/$name.sass.csv") lines"
done
[[ ${BLOCK_ONLY:-0} == 1 ]] && exit 0
for problem in '{"family":"layernorm","rows":8,"cols":65536,"dtype":"fp16"}' \
               '{"family":"rmsnorm","rows":8,"cols":65536,"dtype":"fp16"}' \
               '{"family":"layernorm","rows":1,"cols":16384,"dtype":"fp16"}'; do
  name=$(python3 -c "import json,sys; p=json.loads(sys.argv[1]); print(f\"{p['family']}-{p['rows']}x{p['cols']}\")" "$problem")
  NCU_SET=full scripts/ncu-details.sh "$ktune" "$out" "$name" "$problem"
done
