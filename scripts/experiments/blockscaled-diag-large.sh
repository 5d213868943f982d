#!/usr/bin/env bash
# ncu's full section set and per-instruction warp stalls (the source page, SASS, summarized by
# ncu_stalls.py) of the block-scaled fp8 winner and cuBLASLt's kernel at 4096 x 7168 x 16384, the
# lowest ratio of suites/blockscaled.json once tiles could be 192 wide
# (results/h200/blockscaled-ed30653/diag-4096x7168x16384).
#   scripts/experiments/blockscaled-diag-large.sh OUTDIR [KTUNE]
set -u
out=${1:?usage: scripts/experiments/blockscaled-diag-large.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=$out/cache NCU_SET=full
p='{"family":"gemm","M":4096,"N":7168,"K":16384,"dtype":"fp8","layout":"rc","scaling":"block"}'
timeout 250 scripts/ncu-details.sh "$ktune" "$out" block-ktune "$p" '^ktune_gemm_wgmma' 1
timeout 150 scripts/ncu-details.sh "$ktune" "$out" block-cublaslt "$p" 'nvjet' 1
for n in block-ktune block-cublaslt; do
  [[ -f $out/$n.ncu-rep ]] || continue
  ncu --import "$out/$n.ncu-rep" --page source --csv --print-source sass > "$out/$n.sass.csv" 2> "$out/$n.sass.err"
  python3 scripts/experiments/ncu_stalls.py "$out/$n.sass.csv" > "$out/$n.stalls.txt" 2>&1
  head -12 "$out/$n.stalls.txt"
done
grep -hE "^  [a-z].*\(|Duration|Elapsed Cycles|SM Frequency|L2 Cache Throughput|Compute \(SM\)|L2 Hit Rate|DRAM Throughput" \
  "$out/block-ktune.txt" "$out/block-cublaslt.txt" | cut -c1-140
