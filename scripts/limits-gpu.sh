#!/usr/bin/env bash
# Issue 37's categories on the GPU, in one call: `ktune bench suites/limits.json` (tuned from an
# empty cache, against cuDNN and the copy roof), PyTorch eager and torch.compile on the same
# problems, the page that puts them side by side, and (KTUNE_NCU_PICKS="6 11", problem indices)
# ncu's kernel durations of ktune's winners and cuDNN's kernels for those problems.
#   scripts/limits-gpu.sh OUTDIR [KTUNE [SUITE]]   KTUNE: a built ktune (default ./build/ktune);
#   SUITE: default suites/limits.json (a part of it, from scripts/suite_part.py --family, where one
#   device call cannot hold the whole)
set -uo pipefail
out=${1:?usage: scripts/limits-gpu.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
suite=${3:-suites/limits.json}
name=$(basename "$suite" .json)
cd "$(dirname "$0")/.."
mkdir -p "$out/logs" "$out/results"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-limits-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }

t0=$SECONDS
"$ktune" bench "$suite" --out "$out/results" --stem "bench-$name" --no-progress > "$out/logs/bench-$name.log" 2>&1
say "bench $name: exit $? in $((SECONDS - t0)) s"

t0=$SECONDS
PYTHONUNBUFFERED=1 python3 scripts/torch_examples.py --suite "$suite" --min-bytes 0 \
  --json "$out/results/torch-$name.json" > "$out/logs/torch-$name.log" 2>&1
say "torch $name: exit $? in $((SECONDS - t0)) s"

python3 scripts/limits_summary.py "$out/results/bench-$name.json" "$out/results/torch-$name.json" \
  > "$out/$name.md" 2> "$out/logs/summary-$name.log"
say "summary: exit $?"

if [[ -n ${KTUNE_NCU_PICKS:-} ]]; then
  t0=$SECONDS
  # shellcheck disable=SC2086
  python3 scripts/ncu_memory_bound.py "$ktune" "$out/results/bench-$name.json" "$out/results/ncu" $KTUNE_NCU_PICKS \
    > "$out/logs/ncu-$name.log" 2>&1
  say "ncu $name: exit $? in $((SECONDS - t0)) s"
fi
