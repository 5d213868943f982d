#!/usr/bin/env bash
# Session 41, call 2: TF32 rr with the consumers splitting the tile's columns (N) against HEAD's
# binary (O, splitting rows), default guided search from empty caches, turns O N O N is too long
# for one call: O N, then every candidate of two ragged rr problems verified by an exhaustive run.
set -x
mkdir -p old && tar -xJf ab/old-bin.tar.xz -C old && tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/ab; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
for who in N O; do
  k=build/ktune; [[ $who == O ]] && k=old/build/ktune
  KTUNE_CACHE_DIR=/tmp/kc-$who timeout 140 $k gemm --m 777 --n 2000 --k 1500 --dtype fp32 --layout rr --exhaustive --out $o/ragged-$who --no-progress > $o/ragged1-$who.log 2>&1
  echo "ragged1 $who rc=$?"
  [[ $who == N ]] && { KTUNE_CACHE_DIR=/tmp/kc-$who timeout 100 $k gemm --m 300 --n 520 --k 700 --dtype fp32 --layout rr --exhaustive --out $o/ragged-$who --no-progress > $o/ragged2-$who.log 2>&1; echo "ragged2 rc=$?"; }
done
for who in N O; do
  k=build/ktune; [[ $who == O ]] && k=old/build/ktune
  KTUNE_CACHE_DIR=/tmp/kb-$who $k bench ab/ab-s41.json --out $o --stem bench-$who --no-progress > $o/bench-$who.log 2>&1
  echo "bench $who rc=$?"
done
python3 scripts/torch_gemm_check.py $o/bench-N.json --json $o/torch-N.json > $o/torch-N.log 2>&1
grep -E "candidates|passed|incorrect|ratio" $o/ragged*.log | head -20
grep -E "^ *(ktune|cublas) " $o/bench-*.log
cat $o/torch-N.log | grep torch-check
cd $OUT && tar -czf ab.tgz ab && rm -rf ab
