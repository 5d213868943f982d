#!/usr/bin/env bash
# Trial: does the evict-first hint on x and y (STREAMING 1) help the one-wave norm problems
# (4096 x 1024), where ktune's LayerNorm fp16 trailed cuDNN by 2% by events? Tunes the built-in
# configs and the trial configs beside them on empty caches, and the trial config again under
# the other timers (CUPTI's kernel stamps; a read flush), so that the hint's effect can be told
# from the timer's. Usage: KTUNE=build-gpu/ktune scripts/experiments/norm-streaming-trial.sh OUTDIR
set -u
ktune=${KTUNE:-build-gpu/ktune}
out=$1
mkdir -p "$out"
here=$(dirname "$0")
for family in layernorm rmsnorm; do
  for dtype in fp16 bf16; do
    problem=(--rows 4096 --cols 1024 --dtype "$dtype")
    log=$out/$family-$dtype.log
    {
      echo "== built-in config"
      KTUNE_CACHE_DIR=$out/cache-builtin "$ktune" "$family" "${problem[@]}" --no-progress --top 8 --out "$out/results"
      echo "== trial config (STREAMING 0/1)"
      KTUNE_CACHE_DIR=$out/cache-trial "$ktune" "$family" "${problem[@]}" --no-progress --top 16 --out "$out/results" \
        --config "$here/${family}_streaming_trial.json"
      if [[ $family == layernorm && $dtype == fp16 ]]; then
        echo "== trial config, --timer cupti"
        KTUNE_CACHE_DIR=$out/cache-cupti "$ktune" "$family" "${problem[@]}" --no-progress --top 16 --out "$out/results" \
          --config "$here/${family}_streaming_trial.json" --timer cupti
        echo "== trial config, --l2-flush read"
        KTUNE_CACHE_DIR=$out/cache-read "$ktune" "$family" "${problem[@]}" --no-progress --top 16 --out "$out/results" \
          --config "$here/${family}_streaming_trial.json" --l2-flush read
      fi
    } > "$log" 2>&1
    echo "$family $dtype: exit $?"
  done
done
