#!/usr/bin/env bash
# Issue 41's NVFP4 weight-only GEMMs on the GPU, in one device call: suites/nvfp4.json benched from
# an empty cache by the default guided search against cuBLAS with 16-bit weights (sample by sample,
# in ktune's rounds); every problem's baseline again through PyTorch (x @ W.t() in bf16/fp16, the
# same library) under triton's do_bench as the independent timer (scripts/torch_gemm_check.py);
# ktune's fp8 GEMM (per-tensor e4m3 weights, 8 bits a weight) at the M = 1 shapes, the other
# low-precision kernel a user could run there; and ncu's basic sections for the M = 1 winners and
# cuBLAS's kernels (scripts/ncu-details.sh), so the gain shows in kernel durations too; first, where
# build/ktune_gpu_tests is built, the GPU test of the kernels' correctness.
#   scripts/nvfp4-gpu.sh OUTDIR [KTUNE]
set -uo pipefail
out=${1:?usage: scripts/nvfp4-gpu.sh OUTDIR [KTUNE]}
ktune=${2:-./build/ktune}
cd "$(dirname "$0")/.."
mkdir -p "$out"
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-nvfp4-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }
if [[ -x build/ktune_gpu_tests ]]; then
  build/ktune_gpu_tests --gtest_filter='GemmKernels.Nvfp4*' > "$out/gpu-tests.log" 2>&1
  say "gpu test GemmKernels.Nvfp4*: exit $?"
fi
t0=$SECONDS
"$ktune" bench suites/nvfp4.json --out "$out" --stem bench-nvfp4 --no-progress > "$out/bench-nvfp4.log" 2>&1
say "bench nvfp4: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
python3 scripts/torch_gemm_check.py "$out/bench-nvfp4.json" --json "$out/torch-nvfp4.json" > "$out/torch-nvfp4.log" 2>&1
say "torch nvfp4: exit $? in $((SECONDS - t0)) s"
python3 - "$out/fp8-m1.json" <<'PY'
import json, sys
shapes = [(4096, 4096), (4096, 14336), (14336, 4096)]
json.dump({"name": "fp8-m1", "description": "ktune's fp8 GEMM (per-tensor e4m3) at suites/nvfp4.json's M = 1 shapes",
           "problems": [{"family": "gemm", "M": 1, "N": n, "K": k, "dtype": "fp8", "layout": "rc"} for n, k in shapes]},
          open(sys.argv[1], "w"), indent=1)
PY
t0=$SECONDS
"$ktune" bench "$out/fp8-m1.json" --out "$out" --stem bench-fp8-m1 --no-progress > "$out/bench-fp8-m1.log" 2>&1
say "bench fp8 M=1: exit $? in $((SECONDS - t0)) s"
for i in 0 1 2; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open('suites/nvfp4.json'))['problems'][int(sys.argv[1])]))" "$i")
  NCU_SET=${NCU_SET:-basic} scripts/ncu-details.sh "$ktune" "$out/ncu" "nvfp4-$i" "$problem" 'nvfp4|nvjet|gemv|gemm|sm90' 6
  say "ncu nvfp4 $i: exit $?"
done
