#!/usr/bin/env bash
# Issue 38's large GEMMs on the GPU, one dtype a device call: the DTYPE part of suites/large.json
# (optionally only sizes in [MIN, MAX] of M) benched from an empty cache by the default guided
# search against cuBLAS (sample by sample, in ktune's rounds), then every problem again through
# PyTorch's call of the same library under triton's do_bench (scripts/torch_gemm_check.py, the
# independent timer) in the same call; KTUNE_NCU_PICKS="i j" (indices into the part) adds ncu's
# full sections for those problems' winners and cuBLAS's kernels (scripts/ncu-details.sh).
#   scripts/large-gpu.sh OUTDIR [DTYPE [MIN [MAX [KTUNE]]]]    DTYPE: fp16 (default), bf16, fp8, fp32
set -uo pipefail
out=${1:?usage: scripts/large-gpu.sh OUTDIR [DTYPE [MIN [MAX [KTUNE]]]]}
dtype=${2:-fp16}; min=${3:-0}; max=${4:-1000000}
ktune=${5:-./build/ktune}
cd "$(dirname "$0")/.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-large-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }
part="$out/large-$dtype.json"
python3 - "$part" "$dtype" "$min" "$max" <<'PY'
import json, sys
path, dtype, lo, hi = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
suite = json.load(open("suites/large.json"))
problems = [p for p in suite["problems"] if p["dtype"] == dtype and lo <= p["M"] <= hi]
json.dump({"name": f"large-{dtype}", "description": f"suites/large.json, {dtype}, M in [{lo}, {hi}]",
           "problems": problems}, open(path, "w"), indent=1)
print(f"{path}: {len(problems)} problems")
PY
t0=$SECONDS
"$ktune" bench "$part" --out "$out" --stem "bench-large-$dtype" --no-progress > "$out/bench-large-$dtype.log" 2>&1
say "bench large $dtype: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
python3 scripts/torch_gemm_check.py "$out/bench-large-$dtype.json" --json "$out/torch-large-$dtype.json" \
  > "$out/torch-large-$dtype.log" 2>&1
say "torch large $dtype: exit $? in $((SECONDS - t0)) s"
for i in ${KTUNE_NCU_PICKS:-}; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['problems'][int(sys.argv[2])]))" "$part" "$i")
  scripts/ncu-details.sh "$ktune" "$out/ncu" "large-$dtype-$i" "$problem" 'gemm|nvjet|sm90|cutlass|gemv' 4
  say "ncu large $dtype $i: exit $?"
done
