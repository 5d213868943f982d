#!/usr/bin/env bash
# The declared-family examples (examples/) on the GPU, in one call: the suite of their problems
# tuned and benched by ktune against the copy roof (and the built-in add beside its declaration),
# each example's planted-fault sweep run exhaustively at its large problem, PyTorch eager and
# torch.compile timed on the same problems, ncu's kernel durations of both for the large problems,
# and a summary page.
#   scripts/examples-gpu.sh OUTDIR [KTUNE]     KTUNE: a built ktune (default ./build/ktune)
set -uo pipefail
out=${1:?usage: scripts/examples-gpu.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/.."
mkdir -p "$out/logs" "$out/results"
export KTUNE_FAMILY_PATH=examples/rope:examples/residual_rmsnorm:examples/histogram:examples/vector_add
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-examples-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }

t0=$SECONDS
"$ktune" bench examples/examples.suite.json --out "$out/results" --stem bench-examples --no-progress \
  > "$out/logs/bench-examples.log" 2>&1
say "bench examples: exit $? in $((SECONDS - t0)) s"

planted=()
run_planted() {  # FAMILY STEM PROBLEM-FLAGS...
  local family=$1 stem=$2; shift 2
  local t=$SECONDS
  "$ktune" "$family" "$@" --config "examples/$family/planted/${family}_planted.sweep.json" --exhaustive --retune \
    --out "$out/results" --no-progress > "$out/logs/$stem.log" 2>&1
  say "$stem: exit $? in $((SECONDS - t)) s"
  local f
  f=$(ls -t "$out"/results/"$family"-*.json 2>/dev/null | head -n 1)
  [[ -n $f ]] && mv "$f" "$out/results/$stem.json" && planted+=("$out/results/$stem.json")
}
run_planted rope planted-rope --tokens 8192 --heads 32 --head-dim 128 --dtype bf16
run_planted residual_rmsnorm planted-residual_rmsnorm --rows 8192 --hidden 4096 --dtype bf16
run_planted histogram planted-histogram --n 16777216 --bins 32000 --dtype i32

t0=$SECONDS
PYTHONUNBUFFERED=1 python3 scripts/torch_examples.py --json "$out/results/torch-examples.json" \
  > "$out/logs/torch-examples.log" 2>&1
say "torch examples: exit $? in $((SECONDS - t0)) s"

t0=$SECONDS
python3 scripts/ncu_examples.py "$ktune" "$out/results/bench-examples.json" "$out/results/ncu" \
  rope residual_rmsnorm > "$out/logs/ncu-examples.log" 2>&1
say "ncu examples: exit $? in $((SECONDS - t0)) s"
grep "^ncu " "$out/logs/ncu-examples.log" | tee -a "$out/summary.txt"

python3 scripts/examples_summary.py "$out/results/bench-examples.json" "$out/results/torch-examples.json" \
  "${planted[@]}" > "$out/examples.md" 2> "$out/logs/summary.log"
say "summary: exit $?"
