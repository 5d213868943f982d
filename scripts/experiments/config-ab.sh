#!/usr/bin/env bash
# Sweep configs of one family side by side over a suite in one device call, in turns (A N A N):
# every turn is `ktune bench` with the default guided search from its own empty cache, against
# the family's baseline in the same rounds, with the same binary, so that the configs alone
# differ. Sessions 37 and 38 wrote this loop into each call's script (results/h200/lnb-*-s37,
# results/h200/split-tail-s38); the old config of an A/B is `git show REV:configs/X.json > ab/old.json`.
#   scripts/experiments/config-ab.sh OUTDIR SUITE NAME=CONFIG [NAME=CONFIG ...]
# CONFIGS_FROM (unset): a results file whose configurations every turn measures instead of searching
# (`ktune bench --configs-from`; a problem it lacks is tuned), so that kernels are compared on the
# same tiles, apart from what each one's search would pick (as results/h200/blockscaled-bulk-s39's
# calls 3 and 4 compared two kernels).
# ROUNDS (2): passes over the configs; BUDGET_S (575): seconds the call may use from the start of
# this script, so a turn that cannot get 40 s is logged as skipped; TURN_S (200): the most one turn
# may take; KTUNE (./build/ktune). Writes OUTDIR/NAME<round>/bench-NAME<round>.* (the tuning CSV
# and the results JSON gzipped, the raw samples dropped), OUTDIR/NAME<round>.log and
# OUTDIR/summary.txt (each turn's exit status and seconds). Each turn's cache stays in
# CACHE_ROOT/config-ab-NAME<round> (CACHE_ROOT: /tmp), outside OUTDIR, for ncu of its winners
# with `ktune bench ... --cache-dir DIR --no-tune` afterwards.
set -uo pipefail
usage="usage: scripts/experiments/config-ab.sh OUTDIR SUITE NAME=CONFIG [NAME=CONFIG ...]"
(( $# >= 3 )) || { echo "$usage" >&2; exit 2; }
out=$1 suite=$2
shift 2
for spec in "$@"; do
  [[ $spec == *=* && -f ${spec#*=} ]] || { echo "config-ab: '$spec' is not NAME=CONFIG with an existing CONFIG" >&2; exit 2; }
done
[[ -f $suite ]] || { echo "config-ab: no suite $suite" >&2; exit 2; }
ktune=${KTUNE:-./build/ktune}
cache_root=${CACHE_ROOT:-/tmp}
rounds=${ROUNDS:-2} budget=${BUDGET_S:-575} turn_limit=${TURN_S:-200}
fixed=()
if [[ -n ${CONFIGS_FROM:-} ]]; then
  [[ -f $CONFIGS_FROM ]] || { echo "config-ab: CONFIGS_FROM '$CONFIGS_FROM' is not a file" >&2; exit 2; }
  fixed=(--configs-from "$CONFIGS_FROM")
fi
mkdir -p "$out"
for ((round = 1; round <= rounds; ++round)); do
  for spec in "$@"; do
    name=${spec%%=*}$round config=${spec#*=}
    left=$((budget - SECONDS))
    if (( left < 40 )); then
      echo "$name: skipped, $left s left" >> "$out/summary.txt"
      continue
    fi
    t0=$SECONDS
    timeout $((turn_limit < left ? turn_limit : left)) "$ktune" bench "$suite" --config "$config" "${fixed[@]}" \
      --cache-dir "$cache_root/config-ab-$name" --out "$out/$name" --stem "bench-$name" --no-progress > "$out/$name.log" 2>&1
    echo "$name: exit $? in $((SECONDS - t0)) s" >> "$out/summary.txt"
  done
done
gzip -f "$out"/*/*.tuning.csv "$out"/*/bench-*.json 2>/dev/null
rm -f "$out"/*/*.tuning.json "$out"/*/*.tuning.json.gz
exit 0
