#!/usr/bin/env bash
# What answering from the nearest tuned shape costs, on the GPU: suites/regret-anchors.json tuned
# into ANCHORS (a cache folder), then suites/regret.json (or the problems PART picks) benched with
# --nearest-from ANCHORS: each shape tuned for itself and timed beside the configuration the
# anchors' nearest row answers with, in the same interleaved rounds. ANCHORS/regret.json gathers
# the regrets, which `ktune lookup --cache-dir ANCHORS` reports.
#   scripts/regret-gpu.sh OUTDIR ANCHORS [PART [KTUNE]]     PART: gemm, others or all (default)
set -uo pipefail
out=${1:?usage: scripts/regret-gpu.sh OUTDIR ANCHORS [PART [KTUNE]]}
anchors=${2:?usage: scripts/regret-gpu.sh OUTDIR ANCHORS [PART [KTUNE]]}
part=${3:-all}
ktune=${4:-./build/ktune}
cd "$(dirname "$0")/.."
mkdir -p "$out" "$anchors"
say() { echo "$*" | tee -a "$out/summary.txt"; }
t0=$SECONDS
"$ktune" bench suites/regret-anchors.json --cache-dir "$anchors" --samples 100 --rounds 10 --out "$out" \
  --stem anchors --no-progress > "$out/anchors.log" 2>&1
say "anchors: exit $? in $((SECONDS - t0)) s"
suite=suites/regret.json
if [[ $part != all ]]; then
  python3 - "$part" "$out/regret-$part.json" <<'PY'
import json, sys
part, path = sys.argv[1:]
s = json.load(open("suites/regret.json"))
s["problems"] = [p for p in s["problems"] if (p["family"] == "gemm") == (part == "gemm")]
s["name"] = f"regret-{part}"
json.dump(s, open(path, "w"), indent=1)
PY
  suite=$out/regret-$part.json
fi
t0=$SECONDS
KTUNE_CACHE_DIR=$out/own-cache "$ktune" bench "$suite" --nearest-from "$anchors" --samples 100 --rounds 10 \
  --out "$out" --stem "regret-$part" --no-progress > "$out/regret-$part.log" 2>&1
say "regret $part: exit $? in $((SECONDS - t0)) s"
grep -E "slower than its own winner|did not pass here|at distance \[" "$out/regret-$part.log" | tee -a "$out/summary.txt"
