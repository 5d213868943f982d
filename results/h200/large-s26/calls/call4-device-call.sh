#!/usr/bin/env bash
# Session 26 call 4: the GPU tests of the kernels whose exponential moved into fast_exp2.cuh
# (softmax, attention, GELU), then issue 38's fp16 training projections (M = 16384) on an H200.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/s26-4; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cp ab/s26-4.sh $o/device-call.sh
t=$SECONDS; timeout 170 ./build/ktune_gpu_tests --gtest_filter='SoftmaxGpu.*:AttentionGpu.*:MemoryBoundGpu.Softmax*:BiasGeluDropoutGpu.MatchesItsReference*' > $o/gpu-tests.log 2>&1
echo "tests: exit $? in $((SECONDS-t)) s" | tee -a $o/summary.txt
python3 -c "
import json;s=json.load(open('suites/large.json'))
s['problems']=[p for p in s['problems'] if p['M']==16384 and p['dtype']=='fp16']
s['description']='suites/large.json, its fp16 projections of M = 16384'
json.dump(s,open('/tmp/large-proj.json','w'),indent=1)"
KTUNE_SUITE=/tmp/large-proj.json KTUNE_PART_NAME=large-fp16-projections timeout 180 scripts/large-gpu.sh $o/proj fp16 16384 16384
find $o -name "*.json" -size +300k -exec gzip -f {} \; ; find $o -name "*.tuning.csv" -exec gzip -f {} \;
tar -czf $OUT/s26-4.tgz -C $OUT s26-4
