#!/usr/bin/env bash
# Session 10 call (four H100s), code 2593205 (split-K's sums hold only the outputs a thread has;
# gemv and gemv_dot promise ptxas their occupancy): both anchor suites, hopper-dtypes and edges
# tuned afresh by the default guided search, each GPU's benches followed by PyTorch's cuBLAS under
# do_bench on their problems, and the GPU tests: GPU 0 anchors-fp16 then
# GemmKernels.WgmmaStreamK..., GPU 1 anchors-bf16 then every non-GEMM GPU test, GPU 2
# hopper-dtypes and edges, GPU 3 GemmKernels.MatchCublas....
set -u
OUT=$1; w=/tmp/s10/w; mkdir -p $w
nvidia-smi -L > $w/gpus.txt
KTUNE_GPU_STAGES=none scripts/gpu-check.sh $w/build > $w/build.out 2>&1 || { tail -30 $w/build.out; exit 1; }
cat $w/build/summary.txt
gpu() { local dev=$1 name=$2 stages=$3 regex=${4:-} limit=${5:-300}; CUDA_VISIBLE_DEVICES=$dev KTUNE_CACHE_DIR=/tmp/kc-$name \
  KTUNE_GPU_STAGES=$stages KTUNE_GPU_TEST_REGEX=$regex timeout $limit scripts/gpu-check.sh $w/$name > $w/$name.out 2>&1; }
( gpu 0 a16 anchors-fp16,torch-gemm; gpu 0 t-streamk tests GemmKernels.WgmmaStreamK ) &
sleep 3
( gpu 1 a-bf16 anchors-bf16,torch-gemm
  CUDA_VISIBLE_DEVICES=1 timeout 230 ctest --test-dir build-gpu -L gpu -E GemmKernels --output-on-failure > $w/t-other.log 2>&1
  echo "other gpu tests: exit $?" >> $w/t-other.log ) &
sleep 3
( gpu 2 e dtypes,suite-edges,torch-gemm "" 420 ) &
sleep 3
( gpu 3 t-match tests GemmKernels.MatchCublas ) &
wait
tar czf $OUT/w.tgz -C /tmp/s10 w
cat $w/gpus.txt
for d in a16 a-bf16 e t-streamk t-match; do echo "== $d"; grep -E "Geometric|torch|exit" $w/$d/summary.txt | cut -c1-200; done
grep -E "tests passed|tests failed|exit|\*\*\*Failed|Failed  " $w/t-other.log | head
