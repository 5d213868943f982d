#!/usr/bin/env bash
# Session 46, call 5 (HEAD's binary; the persistent kernel from persistent-staged-tried.patch beside
# pinned configs in ab/pbal/): LayerNorm 4096 x 5001 fp16, five blocks of 256 an SM, the
# non-persistent winner (np8) against the persistent kernel in 660 blocks (p8, p16: 6.2 rounds,
# the last a fifth full) and in 588 (b8, b16: the same seven rounds on fewer blocks, the last nearly
# full), 8- and 16-byte vectors; events in two rounds of turns.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c5; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
for round in 1 2; do
  for c in np8 p8 b8 p16 b16; do
    timeout 40 ./build/ktune bench ab/ln-5001.json --config ab/pbal/$c.json --cache-dir /tmp/pb-$c --out $o/$c-$round --stem $c-$round --no-progress > $o/$c-$round.log 2>&1
    echo "$c round $round: exit $? $(grep -E '^  (ktune|copy)' $o/$c-$round.log | awk '{print $1, $2}' | tr '\n' ' ')" >> $o/summary.txt
  done
done
rm -f $o/*/*.json
tar -czf $OUT/c5.tgz -C $OUT c5
