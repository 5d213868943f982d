#!/usr/bin/env bash
# Where the fused residual + RMSNorm example loses ~2% to torch.compile at 8192 x 4096 bf16 (both
# at the copy roof): every candidate of its sweep by ktune's timer and by ncu's, torch.compile's
# kernel by ncu, and the Triton code it runs.
#   scripts/experiments/residual-rmsnorm-gap.sh OUTDIR [KTUNE]
set -uo pipefail
out=${1:?usage: scripts/experiments/residual-rmsnorm-gap.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
export KTUNE_FAMILY_PATH=examples/residual_rmsnorm
problem=(--rows 8192 --hidden 4096 --dtype bf16)
KTUNE_CACHE_DIR=/tmp/rr-cache "$ktune" residual_rmsnorm "${problem[@]}" --exhaustive --retune --top 25 \
  --out "$out" --no-progress > "$out/exhaustive.log" 2>&1
echo "exhaustive: exit $?"
KTUNE_CACHE_DIR=/tmp/rr-cache-ncu python3 scripts/experiments/ncu_sweep.py "$out/ncu-ktune.csv" 'residual_rmsnorm' --top 30 -- \
  "$ktune" residual_rmsnorm "${problem[@]}" --exhaustive --retune --no-hold --warmup-ms 0 --min-time-ms 0 \
  --min-samples 3 --max-time-ms 0.5 --finalists 1 --out "$out/ncu-run" --no-progress > "$out/ncu-ktune.txt" 2>&1
echo "ncu ktune: exit $?"
python3 scripts/experiments/ncu_sweep.py "$out/ncu-torch.csv" 'triton' -- \
  python3 scripts/torch_examples.py --ncu residual_rmsnorm > "$out/ncu-torch.txt" 2>&1
echo "ncu torch: exit $?"
python3 scripts/experiments/torch_compiled_code.py residual_rmsnorm bf16 rows=8192 hidden=4096 > "$out/triton-code.py" 2>&1
echo "triton code: exit $?"
