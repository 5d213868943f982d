#!/usr/bin/env bash
# Issue 41's block-scaled FP8 GEMMs on the GPU: suites/blockscaled.json (optionally only the
# problems with M in [MIN, MAX]) benched from an empty cache by the default guided search against
# cuBLASLt's block-scaled matmul (sample by sample, in ktune's rounds), then every problem again
# through torch._scaled_mm with the same block scales under triton's do_bench (the independent
# timer, scripts/torch_gemm_check.py) in the same call; KTUNE_NCU_PICKS="i j" (indices into the
# part) adds ncu's kernel durations for those problems' winners and cuBLASLt's kernels.
#   scripts/blockscaled-gpu.sh OUTDIR [MIN [MAX [KTUNE]]]
set -uo pipefail
out=${1:?usage: scripts/blockscaled-gpu.sh OUTDIR [MIN [MAX [KTUNE]]]}
min=${2:-0}; max=${3:-1000000}
ktune=${4:-./build/ktune}
cd "$(dirname "$0")/.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-blockscaled-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }
part="$out/blockscaled.json"
python3 - "$part" "$min" "$max" <<'PY'
import json, sys
path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
suite = json.load(open("suites/blockscaled.json"))
problems = [p for p in suite["problems"] if lo <= p["M"] <= hi]
json.dump({"name": "blockscaled", "description": f"suites/blockscaled.json, M in [{lo}, {hi}]",
           "problems": problems}, open(path, "w"), indent=1)
print(f"{path}: {len(problems)} problems")
PY
t0=$SECONDS
"$ktune" bench "$part" --out "$out" --stem bench-blockscaled --no-progress > "$out/bench-blockscaled.log" 2>&1
say "bench blockscaled: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
python3 scripts/torch_gemm_check.py "$out/bench-blockscaled.json" --json "$out/torch-blockscaled.json" \
  > "$out/torch-blockscaled.log" 2>&1
say "torch blockscaled: exit $? in $((SECONDS - t0)) s"
for i in ${KTUNE_NCU_PICKS:-}; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['problems'][int(sys.argv[2])]))" "$part" "$i")
  NCU_SET=${NCU_SET:-basic} scripts/ncu-details.sh "$ktune" "$out/ncu" "blockscaled-$i" "$problem" 'gemm|nvjet|sm90|cutlass' 4
  say "ncu blockscaled $i: exit $?"
done
