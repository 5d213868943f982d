#!/usr/bin/env bash
# Issue 37, session 18: where LayerNorm backward loses at 4000 x 5001 fp16 (78% of the copy roof
# where 16384 x 4096 is at 93%): the same row length at four times the rows, and an even row
# length (5000, 16-byte vectors, no loose elements) at both row counts, each tuned by the default
# search against the copy roof. Run from the repository root with OUT set; writes OUT/scaling.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/scaling; mkdir -p $o
for shape in "4000 5001" "4000 5000" "16000 5001" "16000 5000" "4000 4096"; do
  set -- $shape
  KTUNE_CACHE_DIR=/tmp/scaling timeout 60 ./build/ktune layernorm_backward --rows $1 --cols $2 --dtype fp16 --top 5 \
    --out $o --no-progress > $o/lnb-$1x$2.log 2>&1
  echo "$1 x $2: exit $?"; grep -E "^ +1 |^ ref" $o/lnb-$1x$2.log
done
