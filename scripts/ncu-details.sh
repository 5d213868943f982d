#!/usr/bin/env bash
# ncu's full section set (warp stalls, memory workload, occupancy, launch statistics) for one
# problem's cached winner and its library baseline: what to read before changing a kernel.
#   scripts/ncu-details.sh KTUNE OUTDIR NAME PROBLEM_JSON [KERNEL_REGEX [LAUNCHES]]
# PROBLEM_JSON is one suite entry, e.g. '{"family":"softmax","rows":256,"cols":262144,"dtype":"fp16"}'.
# The problem is tuned first if the cache has no winner for it (outside ncu), then benched once
# under ncu with --no-tune. KERNEL_REGEX picks the kernels profiled (default: any name with
# softmax, _norm_, Norm or layer, which takes ktune's and cuDNN's kernels of those families and leaves
# ktune's fill, flush and compare kernels out, but not the references whose names hold those words,
# such as ktune_ref_layernorm_bwd_dx: pass '^ktune_layernorm_bwd' for the backward's candidate, or
# '^[^k]' for the library's kernels alone); LAUNCHES caps how many (default 4).
# NCU_SET picks the section set (default full; basic is quick).
# Writes OUTDIR/NAME.ncu-rep and OUTDIR/NAME.txt (the details page as text).
set -uo pipefail
ktune=${1:?usage: scripts/ncu-details.sh KTUNE OUTDIR NAME PROBLEM_JSON [KERNEL_REGEX [LAUNCHES]]}
out=${2:?}; name=${3:?}; problem=${4:?}
regex=${5:-softmax|_norm_|Norm|layer}; launches=${6:-4}
mkdir -p "$out"
suite="$out/$name.suite.json"
printf '{"name": "%s", "problems": [%s]}\n' "$name" "$problem" > "$suite"
"$ktune" bench "$suite" --out "$out" --stem "$name-tune" --no-progress > "$out/$name-tune.log" 2>&1 ||
  { echo "ncu-details $name: tuning failed (see $name-tune.log)"; exit 1; }
# --no-hold: ncu serializes launches, so a held stream would only wait for its safety valve.
ncu --target-processes all --set "${NCU_SET:-full}" --clock-control none --cache-control all \
  -k "regex:$regex" --launch-count "$launches" -f -o "$out/$name" \
  "$ktune" bench "$suite" --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
  --out "$out" --stem "$name-ncu" --no-progress > "$out/$name-ncu.log" 2>&1
rc=$?
ncu --import "$out/$name.ncu-rep" --page details > "$out/$name.txt" 2>&1
echo "ncu-details $name: exit $rc, $(grep -c '^  [a-zA-Z_]' "$out/$name.txt") kernels profiled -> $name.txt"
