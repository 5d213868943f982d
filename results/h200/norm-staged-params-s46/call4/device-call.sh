#!/usr/bin/env bash
# Session 46, call 4 (HEAD's binary): the same winners after each L2 flush: `--l2-flush write`
# (ktune's default: a memset of 2x L2, leaving it full of dirty lines) and `read` (reading 2x L2),
# by the events and by CUPTI, in turns; the default search first, from an empty cache.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 200 ./build/ktune bench ab/timers.json --cache-dir /tmp/tc --out $o/tune --stem tune --no-progress > $o/tune.log 2>&1
echo "tune: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
for round in 1 2; do
  for flush in write read; do
    for timer in events cupti; do
      t0=$SECONDS
      timeout 60 ./build/ktune bench ab/timers.json --cache-dir /tmp/tc --no-tune --timer $timer --l2-flush $flush --out $o/$flush-$timer$round --stem $flush-$timer$round --no-progress > $o/$flush-$timer$round.log 2>&1
      echo "$flush $timer $round: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
    done
  done
done
rm -f $o/*/*.json
tar -czf $OUT/c4.tgz -C $OUT c4
