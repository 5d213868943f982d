#!/usr/bin/env bash
# The fused residual + RMSNorm example with its HINTS tunable (L2 eviction policies on the loads
# and stores) against torch.compile, in one device call: the exhaustive sweep at 8192 x 4096 bf16
# (every HINTS value beside the others), the default guided search over the hidden sizes of
# examples/residual_rmsnorm/shapes.suite.json against the copy roof, PyTorch eager and
# torch.compile on the same problems under do_bench, and ncu's kernel durations of both at
# 8192 x 4096.
#   scripts/experiments/residual-rmsnorm-hints.sh OUTDIR [KTUNE]
set -uo pipefail
out=${1:?usage: scripts/experiments/residual-rmsnorm-hints.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
export KTUNE_FAMILY_PATH=examples/residual_rmsnorm
suite=examples/residual_rmsnorm/shapes.suite.json
KTUNE_CACHE_DIR=/tmp/rr-exhaustive "$ktune" residual_rmsnorm --rows 8192 --hidden 4096 --dtype bf16 --exhaustive \
  --retune --top 40 --out "$out" --no-progress > "$out/exhaustive.log" 2>&1
echo "exhaustive: exit $?"
export KTUNE_CACHE_DIR=/tmp/rr-shapes
rm -rf "$KTUNE_CACHE_DIR"
"$ktune" bench "$suite" --out "$out" --stem bench-shapes --no-progress > "$out/bench-shapes.log" 2>&1
echo "bench: exit $?"
PYTHONUNBUFFERED=1 python3 scripts/torch_examples.py --suite "$suite" --json "$out/torch-shapes.json" \
  > "$out/torch-shapes.log" 2>&1
echo "torch: exit $?"
python3 scripts/ncu_examples.py "$ktune" "$out/bench-shapes.json" "$out/ncu" residual_rmsnorm > "$out/ncu.log" 2>&1
echo "ncu: exit $?"
grep "^ncu " "$out/ncu.log"
