#!/bin/bash
# Fixed cost per launch: ktune's 1024x4096 winner tile (128x256, 2 consumers, 4 stages; clusters of 2 or
# none; epilogue 2 or 1) against cuBLAS over K, same run per K.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
R=/tmp/ic; rm -rf $R; mkdir -p $R
for k in 256 512 1024 2048 4096 8192; do
  ./build/ktune gemm --m 1024 --n 4096 --k $k --config $PWD/results/h100/issue12-2593205/fixed-tile-over-k/gemm_wgmma_one.json --kernel $PWD/kernels/gemm_wgmma.cu \
    --exhaustive --top 6 --no-progress --cache-dir /tmp/kc-ic --out $R/k$k > $R/k$k.log 2>&1
  echo "== K=$k"; grep -E "^ +[0-9]+ |ref " $R/k$k.log
done
cp $R/*.log ${OUT:-$R}/
