#!/usr/bin/env bash
# Session 34, call 2: KTUNE_FFMA_YIELD=2 (no-yield bit set on every FFMA of the promotion runs)
# against unchanged cubins (0), same binary; 1 (call 1's cleared bits) once more. Default guided
# search of the gemm_wgmma config, shared compile cache, --retune, order alternating by round.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
cuobjdump -sass ab/s34/noyield.cubin > $O/noyield.sass 2>&1; echo "sass lines $(wc -l < $O/noyield.sass)" >> $O/summary.txt
KTUNE_FFMA_YIELD=2 timeout 200 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*' > $O/gpu-tests-noyield.txt 2>&1
echo "gpu tests (noyield) exit $? in $SECONDS s" >> $O/summary.txt
C=/tmp/c34
for round in 1 2 3; do
  case $round in 1) order="0 2 1";; 2) order="2 0";; 3) order="0 2";; esac
  for shape in 4096x4096x7168 4096x7168x16384 4096x7168x2048; do
    IFS=x read -r m n k <<< "$shape"
    for y in $order; do
      t0=$SECONDS
      KTUNE_FFMA_YIELD=$y timeout 150 build/ktune gemm --m $m --n $n --k $k --dtype fp8 --layout rc --scaling block \
        --config configs/gemm_wgmma.json --cache-dir $C --retune --out $O/res-$y-$round --no-progress --top 5 > $O/$y-$round-$shape.log 2>&1
      echo "$round $y $shape exit $? $((SECONDS-t0)) s: $(grep -E '^ *1 ' $O/$y-$round-$shape.log | head -1 | cut -c1-150)" >> $O/summary.txt
      grep -E "^ ref" $O/$y-$round-$shape.log | cut -c1-40,80-200 >> $O/summary.txt
      [ $SECONDS -gt 500 ] && break 3
    done
  done
done
echo "total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
