#!/usr/bin/env bash
# Session 33, call 4: the norms' rows kernel holding 16-bit x packed when PRELOAD (new) against
# 8014f2e's kernel (old): the norms' GPU tests, then ab/s33-norms.json benched from empty
# caches by the default search, old, new, old, new, each against the copy roof and cuDNN in its rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-old.xz > /tmp/ktune-old && chmod +x /tmp/ktune-old
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 200 build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.*LayerNormMatches*:MemoryBoundGpu.RmsNorm*:MemoryBoundGpu.APlantedWrongLayerNormIsRejected:MemoryBoundGpu.AnRmsNorm*' > $O/gpu-tests-norms.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
for rep in 1 2; do
  for b in old new; do
    bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-old
    t0=$SECONDS
    timeout 150 $bin bench ab/s33-norms.json --cache-dir /tmp/c-$b-$rep --out $O/$b-$rep --stem norms --no-progress > $O/$b-$rep.log 2>&1
    echo "bench $b $rep exit $? in $((SECONDS - t0)) s" >> $O/summary.txt
  done
done
echo "total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
