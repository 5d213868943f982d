#!/usr/bin/env bash
# Where gemm_nvfp4_wgmma's time goes at one prefill shape (default 4096 x 4096 x 4096 bf16), in one
# device call: ncu's speed-of-light, warp-state, scheduler and compute sections for the kernel in
# the fixed configuration of ab/fixed.json, for cuBLAS's kernel beside it, and for the same kernel
# with the decode left out (ab/nodecode.cu: the raw nibble words, masked, go to the tensor cores;
# its answers are wrong, so ktune never times it and ncu's duration is the one reading), or any
# other variant kept in ab/ (VARIANTS).
#   scripts/experiments/nvfp4-prefill-diag.sh OUTDIR [KTUNE]      M, N, K from the environment
# Writes ab/fixed.json (the config pinned to BLOCK_T=256 NUM_CONSUMERS=2 NUM_STAGES=4 SPLIT_K=1,
# the winner at 4096^3) and ab/nodecode.cu from the committed kernel when they are missing; ab/ is
# git-ignored: carry it to the device (run's carry: ["ab"]) for variants made elsewhere.
set -uo pipefail
out=${1:?usage: scripts/experiments/nvfp4-prefill-diag.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
M=${M:-4096} N=${N:-4096} K=${K:-4096}
regex=${REGEX:-nvfp4_wgmma}  # nvjet for cuBLAS's kernel (it runs first: a regex for both profiles only it)
mkdir -p "$out" ab
python3 - <<'PY'
import json, os
if not os.path.exists("ab/fixed.json"):
    c = json.load(open("configs/gemm_nvfp4_wgmma.json"))
    c["name"] = "ab_fixed"
    c["parameters"] = {"BLOCK_T": [256], "NUM_CONSUMERS": [2], "NUM_STAGES": [4], "SPLIT_K": [1]}
    json.dump(c, open("ab/fixed.json", "w"), indent=1)
if not os.path.exists("ab/nodecode.cu"):
    src = open("kernels/gemm_nvfp4_wgmma.cu").read()
    out = src
    for r, w in (("0", "2 * step"), ("1", "2 * step"), ("0", "2 * step + 1"), ("1", "2 * step + 1")):
        scale = "s0[j]" if r == "0" else "s1[j]"
        out = out.replace(f"D::mul(decode_byte<T>(words[{r}][{w}], select), {scale});", f"words[{r}][{w}] & 0x3f3f3f3fu;")
    assert out != src, "the kernel's decode lines changed: update the edit here"
    open("ab/nodecode.cu", "w").write(out)
PY
sections=(--section SpeedOfLight --section WarpStateStats --section ComputeWorkloadAnalysis --section SchedulerStats
          --section LaunchStats)
# VARIANTS: "kernel" (kernels/gemm_nvfp4_wgmma.cu) and the names of ab/NAME.cu files.
for variant in ${VARIANTS:-kernel nodecode}; do
  kernel=kernels/gemm_nvfp4_wgmma.cu
  [[ $variant != kernel ]] && kernel=ab/$variant.cu
  ncu --target-processes all "${sections[@]}" --clock-control none --cache-control all \
    -k "regex:$regex" --launch-count 2 -f -o "$out/$variant" \
    "$ktune" gemm_nvfp4 --m "$M" --n "$N" --k "$K" --config ab/fixed.json --kernel "$kernel" --retune --no-hold \
    --min-samples 2 --warmup-ms 0 --no-progress --out "$out/results" > "$out/$variant.log" 2>&1
  echo "ncu $variant: exit $?"
  ncu --import "$out/$variant.ncu-rep" --page details > "$out/$variant.txt" 2>&1
  awk '/^  [a-zA-Z_].*\(/ {name=$1} /Duration/ {print "'"$variant"'", name, $0}' "$out/$variant.txt"
done
