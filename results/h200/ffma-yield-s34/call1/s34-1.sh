#!/usr/bin/env bash
# Session 34, call 1: FFMA reuse/no-yield bits cleared at load (KTUNE_FFMA_YIELD=1) against the
# unchanged cubins, same binary: block-scaled fp8 GPU test with the patch, SASS of one winner
# before/after, then the default guided search (gemm_wgmma config, shared compile cache, --retune)
# at four M = 4096 shapes and one M = 128, off/on alternating, two rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
cuobjdump -sass ab/s34/orig.cubin > $O/orig.sass 2>&1; cuobjdump -sass ab/s34/patched.cubin > $O/patched.sass 2>&1
diff $O/orig.sass $O/patched.sass | head -60 > $O/sass-diff.txt; echo "sass lines $(wc -l < $O/orig.sass) $(wc -l < $O/patched.sass)" >> $O/summary.txt
KTUNE_FFMA_YIELD=1 timeout 200 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*' > $O/gpu-tests-yield.txt 2>&1
echo "gpu tests (yield) exit $? in $SECONDS s" >> $O/summary.txt
C=/tmp/c34
for round in 1 2; do
  for shape in 4096x4096x7168 4096x7168x16384 4096x7168x2048 4096x2112x7168 128x7168x16384; do
    IFS=x read -r m n k <<< "$shape"
    if [ $round = 1 ]; then order="off on"; else order="on off"; fi
    for v in $order; do
      t0=$SECONDS
      y=0; [ $v = on ] && y=1
      KTUNE_FFMA_YIELD=$y timeout 150 build/ktune gemm --m $m --n $n --k $k --dtype fp8 --layout rc --scaling block \
        --config configs/gemm_wgmma.json --cache-dir $C --retune --out $O/res-$v-$round --no-progress --top 5 > $O/$v-$round-$shape.log 2>&1
      echo "$round $v $shape exit $? $((SECONDS-t0)) s: $(grep -E '^ *1 ' $O/$v-$round-$shape.log | head -1 | cut -c1-150)" >> $O/summary.txt
      grep -E "^ ref|^candidates" $O/$v-$round-$shape.log | cut -c1-40,80-200 >> $O/summary.txt
      [ $SECONDS -gt 520 ] && break 3
    done
  done
done
echo "total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
