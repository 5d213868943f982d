#!/usr/bin/env bash
# Session 36, call 4: the guided search's leaders (each config's fastest within 1.15x of the
# fastest leads before any config's second). GPU tests Search.* and Bench.* on the new binary;
# `ktune gemm` on four shapes from empty caches by ebfe661's binary (ab/ktune-head.xz) and the new
# one, alternating which goes first.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
xz -dc ab/ktune-head.xz > /tmp/ktune-head && chmod +x /tmp/ktune-head
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 95 build/ktune_gpu_tests --gtest_filter='Search.*:Bench.*' > $O/gpu-tests.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
i=0
for shape in "--m 4096" "--m 16 --n 4096 --k 4096" "--m 128 --n 4096 --k 4096" "--m 3000 --n 5000 --k 700"; do
  tag=$(echo $shape | tr -d ' -' )
  order="old new"; (( i % 2 )) && order="new old"; i=$((i + 1))
  for b in $order; do
    [[ $SECONDS -gt 175 ]] && break 2
    bin=build/ktune; [[ $b == old ]] && bin=/tmp/ktune-head
    t0=$SECONDS
    timeout 30 $bin gemm $shape --cache-dir /tmp/c-$b-$tag --out $O/$b-$tag --no-progress > $O/$b-$tag.log 2>&1
    echo "$b $shape exit $? in $((SECONDS - t0)) s" >> $O/summary.txt
  done
done
tar czf $OUT/r.tgz -C $OUT r
