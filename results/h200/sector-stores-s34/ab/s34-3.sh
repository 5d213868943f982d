#!/usr/bin/env bash
# Session 34, call 3: gemm_wgmma's direct stores of 2-byte C as whole 32-byte sectors (quad
# exchange, 8-byte stores) against HEAD's (ab/old_wgmma.cu, 4-byte stores), same binary: the GPU
# tests that run every narrow-panel and pingpong candidate, then the default guided search of the
# gemm_wgmma config at fp8 squares (shared compile cache, --retune), old/new alternating, and
# do_bench of PyTorch's cuBLASLt call on each new result.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 280 build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaNarrowPanelTiles:GemmKernels.WgmmaPingpongEveryCandidate' > $O/gpu-tests.txt 2>&1
echo "gpu tests exit $? in $SECONDS s" >> $O/summary.txt
C=/tmp/c34
run() {  # variant round shape
  local v=$1 round=$2 shape=$3 kernel=kernels/gemm_wgmma.cu t0=$SECONDS
  [ $v = old ] && kernel=ab/old_wgmma.cu
  IFS=x read -r m n k <<< "$shape"
  timeout 120 build/ktune gemm --m $m --n $n --k $k --dtype fp8 --layout rc --config configs/gemm_wgmma.json \
    --kernel $kernel --cache-dir $C --retune --out $O/res-$v-$round --no-progress --top 5 > $O/$v-$round-$shape.log 2>&1
  echo "$round $v $shape exit $? $((SECONDS-t0)) s: $(grep -E '^ *1 ' $O/$v-$round-$shape.log | head -1 | cut -c1-150)" >> $O/summary.txt
}
for shape in 3840x3840x3840 2304x2304x2304 2816x2816x2816 6656x6656x6656 3328x3328x3328; do
  run old 1 $shape; run new 1 $shape
done
for shape in 3840x3840x3840 2304x2304x2304 2816x2816x2816 6656x6656x6656 3328x3328x3328; do
  [ $SECONDS -gt 470 ] && break
  run new 2 $shape; run old 2 $shape
done
for f in $O/res-new-1/*.json; do timeout 30 python3 scripts/torch_gemm_check.py $f >> $O/torch.txt 2>&1; done
echo "total $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
