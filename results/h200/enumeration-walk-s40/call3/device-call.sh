#!/usr/bin/env bash
# Session 40, call 3: how long the README's main command and a block-scaled fp8 tuning take with
# the binary before the enumeration walk (old, e04e504) and with it (new, HEAD), same kernels
# (the new binary's gemm_wgmma differs in a comment only). For each problem and round: old then
# new from an empty folder (cold: NVRTC compiles everything it times), then each again with
# --retune in its own folder (the compiles cached, the search and its timing done again).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/old-ktune.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
o=$OUT/s40-3; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
nproc > $o/nproc.txt
say() { echo "$*" >> $o/summary.txt; }
one() {  # NAME BINARY CACHE ARGS...
  local name=$1 bin=$2 cache=$3; shift 3
  [[ $((500 - SECONDS)) -lt 45 ]] && { say "$name: skipped"; return; }
  local t0=$EPOCHREALTIME
  if [[ -x /usr/bin/time ]]; then
    timeout 120 /usr/bin/time -f "rss %M KB" -o $o/$name.rss $bin "$@" --cache-dir $cache --no-progress > $o/$name.log 2>&1
  else
    timeout 120 $bin "$@" --cache-dir $cache --no-progress > $o/$name.log 2>&1
  fi
  local rc=$?
  say "$name: exit $rc, $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b - a}') s wall, $(grep -h '^search\|candidates:' $o/$name.log | tr '\n' ' ') $(cat $o/$name.rss 2>/dev/null)"
}
fp16=(gemm --m 4096)
bs=(gemm --m 64 --n 7168 --k 2048 --dtype fp8 --layout rc --scaling block)
for round in 1 2; do
  for p in fp16 bs; do
    declare -n args=$p
    one $p-old$round /tmp/ktune-old /tmp/c-$p-old$round "${args[@]}"
    one $p-new$round ./build/ktune /tmp/c-$p-new$round "${args[@]}"
    one $p-old$round-retune /tmp/ktune-old /tmp/c-$p-old$round "${args[@]}" --retune
    one $p-new$round-retune ./build/ktune /tmp/c-$p-new$round "${args[@]}" --retune
  done
done
tar czf $OUT/s40-3.tgz -C $OUT s40-3
