#!/usr/bin/env bash
# Session 42, call 5 (03d1804's binary): the pinned fp16 winners at 2048^3, 2816^3, 4096^3 against cuBLAS,
# timed by CUDA events (the default) and by CUPTI's kernel start/end stamps (--timer cupti, as ncu),
# in turns, twice: how much of the events' ratio is launch time rather than kernel time.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
for turn in 1 2; do for timer in events cupti; do
  timeout 60 build/ktune bench ab/pin-suite.json --configs-from ab/pin-cm1.json --timer $timer --out $r/$timer-$turn --stem b --no-progress > $r/$timer-$turn.log 2>&1
  echo "bench $timer $turn: $?" | tee -a $r/summary.txt
done; done
cp ab/call5-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
