#!/usr/bin/env bash
# Session 41, call 5: the split tail offered up to a half-full last wave (H) against the committed
# config (A) for fp16 rr and fp8 rc at the squares whose last wave is 33-47% full, A H A H.
set -x
tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/call5; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
t0=$(date +%s)
for turn in A1 H1 A2 H2; do
  cfg=configs/gemm_wgmma.json; [[ $turn == H* ]] && cfg=ab/half-tail.json
  [[ $(( $(date +%s) - t0 )) -gt 330 ]] && break
  KTUNE_CACHE_DIR=/tmp/kh-$turn build/ktune bench ab/half16-s41.json --config $cfg --out $o --stem half16-$turn --no-progress > $o/half16-$turn.log 2>&1
  echo "half16 $turn rc=$? $(( $(date +%s) - t0 )) s"
done
grep -E "^ *(ktune|cublas) " $o/half16-*.log
cd $OUT && tar -czf call5.tgz call5 && rm -rf call5
