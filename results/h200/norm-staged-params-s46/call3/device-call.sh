#!/usr/bin/env bash
# Session 46, call 3 (HEAD's binary): the same winners timed by CUDA events (ktune's default) and
# by CUPTI's kernel and copy stamps, against the copy roof in the same rounds: the default search
# from an empty cache with events, then --no-tune twice with each timer in turns.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune bench ab/timers.json --cache-dir /tmp/tc --out $o/tune --stem tune --no-progress > $o/tune.log 2>&1
echo "tune: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for round in 1 2; do
  for timer in events cupti; do
    t0=$SECONDS
    timeout 60 ./build/ktune bench ab/timers.json --cache-dir /tmp/tc --no-tune --timer $timer --out $o/$timer$round --stem $timer$round --no-progress > $o/$timer$round.log 2>&1
    echo "$timer $round: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
  done
done
gzip -f $o/*/*.json 2>/dev/null
tar -czf $OUT/c3.tgz -C $OUT c3
