#!/bin/bash
# gemm_wgmma's main loop: 50c13ae's kernel text ("head") against the working tree's, one candidate
# (the 128x256 tile of 1024x4096x4096's winner, gemm_wgmma_win.json), cuBLAS beside in each run.
# From the repository root with a built build/ktune:
#   git show 50c13ae:kernels/gemm_wgmma.cu > /tmp/gemm_wgmma_head.cu
#   bash results/h100/issue12-5862790/wgmma-ab.sh
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
R=/tmp/wab; rm -rf $R; mkdir -p $R
C=$PWD/results/h100/issue12-5862790/gemm_wgmma_win.json
for round in 1 2; do
for shape in "1024 4096 4096" "1024 4096 8192" "2048 2048 2048" "4096 4096 4096"; do set -- $shape
  for v in head new; do
    f=$([ $v = head ] && echo /tmp/gemm_wgmma_head.cu || echo $PWD/kernels/gemm_wgmma.cu)
    ./build/ktune gemm --m $1 --n $2 --k $3 --config $C --kernel $f --exhaustive --no-progress \
      --cache-dir /tmp/kc-$v --out $R/o --retune > $R/$v-$1x$2x$3-$round.log 2>&1
    echo "$round $v $1x$2x$3: $(grep -E '^ +1 ' $R/$v-$1x$2x$3-$round.log | awk '{print $(NF-5), $(NF-1)}')"
  done
done
done
