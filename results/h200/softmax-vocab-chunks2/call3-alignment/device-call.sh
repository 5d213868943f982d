#!/usr/bin/env bash
# session 23 device call 3: is 4000 x 50257's gap its odd (unaligned) rows? the same kernels on
# row lengths aligned to 16 and 128 bytes; ncu of the winners at 50257 and 50240
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c3; mkdir -p $o/ab
for cols in 50257 50256 50240 50176; do for c in configs/softmax_ring.json configs/softmax.json; do
  n=$(basename $c .json); log=$o/ab/$n-4000x$cols.log
  timeout 60 ./build/ktune softmax --rows 4000 --cols $cols --dtype fp16 --config $c --cache-dir $o/ab/cache --no-progress > $log 2>&1
  echo "$n $cols: exit $? $(grep -E '^ +1  ' $log | head -1 | tr -s ' ' | cut -c1-130) | $(grep -E '^ +(ref|copy)' $log | head -2 | tr -s ' ' | cut -c1-60 | tr '\n' ' ')"
done; done | tee $o/ab.txt
for cols in 50257 50240; do
  timeout 120 scripts/ncu-details.sh ./build/ktune $o/ncu n$cols "{\"family\":\"softmax\",\"rows\":4000,\"cols\":$cols,\"dtype\":\"fp16\"}" '^ktune_softmax' 1
  grep -hE "^  [a-z].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Compute \(SM\) Throughput|Issue Slots Busy|L1/TEX Hit|L2 Hit Rate|Achieved Occupancy" $o/ncu/n$cols.txt | cut -c1-140
done
find $o -name '*.ncu-rep' -delete; rm -rf $o/ab/cache
tar -czf $OUT/c3.tgz -C $OUT c3 && rm -rf $o
