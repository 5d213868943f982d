#!/usr/bin/env bash
# Issue 37's two row-length gaps in one device call: softmax over vocabulary rows (4000 x 50257,
# an odd length, with 32000, 128256 and 151936 beside it as the regression check) and LayerNorm
# backward at the four training shapes of suites/limits.json; tuned from an empty cache against
# cuDNN / the copy roof, PyTorch eager and torch.compile beside them (scripts/limits-gpu.sh), ncu's
# kernel durations for 4000 x 50257 fp16 and 4000 x 5001, and an exhaustive sweep of the latter
# (softmax's guided search at 4000 x 50257 already times every valid candidate).
# Writes OUTDIR/rows.
#   scripts/experiments/long-rows-gpu.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$(dirname "$0")/../.."
o=${1:?usage: scripts/experiments/long-rows-gpu.sh OUTDIR}/rows
mkdir -p "$o"
python3 - <<'PY'
import json
suite = json.load(open("suites/limits.json"))
keep = [p for p in suite["problems"]
        if (p["family"] == "softmax" and p["cols"] in (32000, 50257, 128256, 151936))
        or p["family"] == "layernorm_backward"]
suite.update(name="long-rows", problems=keep,
             description="suites/limits.json's vocabulary softmax rows and LayerNorm backward")
json.dump(suite, open("/tmp/long-rows.json", "w"), indent=1)
print(len(keep), "problems")
PY
# Problem indices for ncu: 4000 x 50257 fp16 is the second, 4000 x 5001 the last.
KTUNE_NCU_PICKS="1 8" timeout 420 scripts/limits-gpu.sh "$o" ./build/ktune /tmp/long-rows.json
for p in "layernorm_backward 4000 5001 fp16"; do
  set -- $p
  KTUNE_CACHE_DIR=/tmp/rows-ex timeout 60 ./build/ktune "$1" --rows "$2" --cols "$3" --dtype "$4" --exhaustive \
    --retune --top 25 --out "$o" --no-progress > "$o/exhaustive-$1-$2x$3.log" 2>&1
  echo "exhaustive $1 $2 x $3: $?" | tee -a "$o/summary.txt"
done
