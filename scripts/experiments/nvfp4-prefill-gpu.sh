#!/usr/bin/env bash
# Issue 41's NVFP4 prefill on the GPU, in one device call: the gemm_nvfp4 GPU test (every candidate
# of both configs on ragged shapes, planted misreadings rejected), then suites/nvfp4-prefill.json
# benched from an empty cache by the default guided search against cuBLAS with the dequantized
# 16-bit weights, PyTorch's x @ W.t() (the same library) under triton's do_bench as the independent
# timer, and ncu's durations of ktune's winner and cuBLAS's kernel at the problems NCU_PICKS names
# (indices into the suite; default 5, 1024 x 14336 x 4096), profiled one at a time.
#   scripts/experiments/nvfp4-prefill-gpu.sh OUTDIR [KTUNE]
set -uo pipefail
out=${1:?usage: scripts/experiments/nvfp4-prefill-gpu.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
mkdir -p "$out"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-nvfp4-prefill-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }
if [[ -x build/ktune_gpu_tests ]]; then
  timeout 240 build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > "$out/gpu-tests.log" 2>&1
  say "gpu test GemmKernels.Nvfp4*: exit $?"
fi
t0=$SECONDS
timeout 300 "$ktune" bench suites/nvfp4-prefill.json --out "$out" --stem bench-nvfp4-prefill --no-progress \
  > "$out/bench-nvfp4-prefill.log" 2>&1
say "bench nvfp4-prefill: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
timeout 150 python3 scripts/torch_gemm_check.py "$out/bench-nvfp4-prefill.json" --json "$out/torch-nvfp4-prefill.json" \
  > "$out/torch-nvfp4-prefill.log" 2>&1
say "torch nvfp4-prefill: exit $? in $((SECONDS - t0)) s"
tail -1 "$out/torch-nvfp4-prefill.log" | tee -a "$out/summary.txt"
for i in ${NCU_PICKS:-5}; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open('suites/nvfp4-prefill.json'))['problems'][int(sys.argv[1])]))" "$i")
  # One kernel name each: cuBLAS runs first and its reference GEMM beside it, so one regex for
  # both would spend the launch count on cuBLAS alone.
  for kernel in nvfp4_wgmma nvjet; do
    NCU_SET=${NCU_SET:-basic} timeout 120 scripts/ncu-details.sh "$ktune" "$out/ncu" "prefill-$i-$kernel" "$problem" "$kernel" 2
    say "ncu prefill $i $kernel: exit $?"
    grep -h "Duration" "$out/ncu/prefill-$i-$kernel.txt" | tee -a "$out/summary.txt"
  done
done
