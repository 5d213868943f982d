#!/bin/bash
# A/B on one GPU, same call: exhaustive sweeps of one config per shape with 89f2ea3's split-K
# kernels (inlined copies from make-head-variants.py in .scratch/k-head/kernels) and the working
# tree's, each beside cuBLAS. Run from the repository root with a built build/ktune:
#   bash results/h100/splitk-ab-2593205/ab.sh OUTDIR
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
R=${1:?usage: ab.sh OUTDIR}; mkdir -p $R
H=$PWD/.scratch/k-head/kernels
run() {  # tag config kernel-file m n k dtype layout
  local tag=$1 cfg=$2 kf=$3 m=$4 n=$5 k=$6 dt=$7 lay=$8
  for v in head new; do
    if [ $v = head ]; then kopt="--kernel $H/${kf%.cu}_inl.cu"; else kopt="--kernel $PWD/kernels/$kf"; fi
    ./build/ktune gemm --m $m --n $n --k $k --dtype $dt --layout $lay --config configs/$cfg.json $kopt \
      --exhaustive --top 10 --no-progress --cache-dir /tmp/kc-ab-$v --out $R/$tag-$v > $R/$tag-$v.log 2>&1
    echo "$tag $v rc=$?"
  done
}
run gemv-1x4096x4096-fp16 gemm_gemv gemv.cu 1 4096 4096 fp16 rr
run gemv-1x4096x4096-fp32 gemm_gemv gemv.cu 1 4096 4096 fp32 rr
run gemv-5x4096x14336-bf16 gemm_gemv gemv.cu 5 4096 14336 bf16 rr
run gemv-16x8192x8192-fp16 gemm_gemv gemv.cu 16 8192 8192 fp16 rr
run dot-4096x8x4096-fp16 gemm_dot gemv_dot.cu 4096 8 4096 fp16 rr
run dot-16x8192x8192-fp16 gemm_dot gemv_dot.cu 16 8192 8192 fp16 rc
run dot-4096x16x4096-bf16 gemm_dot gemv_dot.cu 4096 16 4096 bf16 rr
run dot-8x14336x4096-bf16 gemm_dot gemv_dot.cu 8 14336 4096 bf16 cc
run mma-64x64x32768-fp16 gemm_mma gemm_mma.cu 64 64 32768 fp16 rr
