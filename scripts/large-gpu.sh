#!/usr/bin/env bash
# Issue 38's large GEMMs on the GPU, one dtype a device call: the DTYPE part of suites/large.json
# (optionally only sizes in [MIN, MAX] of M) benched from an empty cache by the default guided
# search against cuBLAS (sample by sample, in ktune's rounds), then every problem again through
# PyTorch's call of the same library under triton's do_bench (scripts/torch_gemm_check.py, the
# independent timer) in the same call; KTUNE_NCU_PICKS="i j" (indices into the part) adds ncu's
# sections (NCU_SET, full by default) for those problems' winners and the library's kernels
# (scripts/ncu-details.sh). KTUNE_SUITE picks another GEMM suite and KTUNE_PART_NAME names the
# part and its files (default large-DTYPE): scripts/blockscaled-gpu.sh.
#   scripts/large-gpu.sh OUTDIR [DTYPE [MIN [MAX [KTUNE]]]]    DTYPE: fp16 (default), bf16, fp8, fp32
set -uo pipefail
out=${1:?usage: scripts/large-gpu.sh OUTDIR [DTYPE [MIN [MAX [KTUNE]]]]}
dtype=${2:-fp16}; min=${3:-0}; max=${4:-1000000}
ktune=${5:-./build/ktune}
suite=${KTUNE_SUITE:-suites/large.json}
name=${KTUNE_PART_NAME:-large-$dtype}
cd "$(dirname "$0")/.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-$name-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }
part="$out/$name.json"
python3 - "$part" "$suite" "$name" "$dtype" "$min" "$max" <<'PY'
import json, sys
path, suite_path, name, dtype, lo, hi = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
suite = json.load(open(suite_path))
problems = [p for p in suite["problems"] if p["dtype"] == dtype and lo <= p["M"] <= hi]
json.dump({"name": name, "description": f"{suite_path}, {dtype}, M in [{lo}, {hi}]",
           "problems": problems}, open(path, "w"), indent=1)
print(f"{path}: {len(problems)} problems")
PY
t0=$SECONDS
"$ktune" bench "$part" --out "$out" --stem "bench-$name" --no-progress > "$out/bench-$name.log" 2>&1
say "bench $name: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
python3 scripts/torch_gemm_check.py "$out/bench-$name.json" --json "$out/torch-$name.json" > "$out/torch-$name.log" 2>&1
say "torch $name: exit $? in $((SECONDS - t0)) s"
for i in ${KTUNE_NCU_PICKS:-}; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open(sys.argv[1]))['problems'][int(sys.argv[2])]))" "$part" "$i")
  scripts/ncu-details.sh "$ktune" "$out/ncu" "$name-$i" "$problem" 'gemm|nvjet|sm90|cutlass|gemv' 4
  say "ncu $name $i: exit $?"
done
