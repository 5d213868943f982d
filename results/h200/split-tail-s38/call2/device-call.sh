#!/usr/bin/env bash
# Session 38, call 2: gemm_wgmma's split tail (STREAM_K 3) with two blocks an SM too, the last
# wave at most a quarter full, its estimate x1.05. The GPU test; ab/tail-suite2.json from empty
# caches with HEAD's config (A) and the new one (N), same binary; PyTorch's cuBLAS under do_bench
# on N's problems; ncu of both winners and cuBLAS's kernel at 2304^3 TF32; then A N again.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/tail2; mkdir -p $o
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $o/gpu.txt
t0=$SECONDS
timeout 150 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaSplitTail*' > $o/gpu-tests.txt 2>&1
echo "gpu tests: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
run() {  # NAME CONFIG LIMIT
  local t0=$SECONDS left=$((585 - SECONDS))
  [[ $left -lt 40 ]] && { echo "$1: skipped, $left s left" >> $o/summary.txt; return; }
  timeout $(( $3 < left ? $3 : left )) ./build/ktune bench ab/tail-suite2.json --config $2 --cache-dir /tmp/c-$1 --out $o/$1 --stem bench-$1 --no-progress > $o/$1.log 2>&1
  echo "$1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
}
run A1 ab/wgmma-old.json 150
run N1 configs/gemm_wgmma.json 170
t0=$SECONDS
timeout 60 python3 scripts/torch_gemm_check.py $o/N1/bench-N1.json --json $o/torch-N1.json > $o/torch-N1.log 2>&1
echo "torch N1: exit $? in $((SECONDS - t0)) s" >> $o/summary.txt
printf '{"name": "one", "problems": [{"family": "gemm", "M": 2304, "N": 2304, "K": 2304, "dtype": "fp32", "layout": "rr"}]}\n' > /tmp/one.json
for v in A1:ab/wgmma-old.json N1:configs/gemm_wgmma.json; do
  n=${v%%:*}; c=${v#*:}
  [[ $((585 - SECONDS)) -lt 30 ]] && break
  timeout 30 ncu --set basic --clock-control none --cache-control all -k 'regex:gemm|nvjet|sm90|cutlass' --launch-count 6 \
    ./build/ktune bench /tmp/one.json --config $c --cache-dir /tmp/c-$n --no-tune --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
    --out $o/ncu --stem ncu-$n --no-progress > $o/ncu-$n.txt 2>&1
  echo "ncu $n: exit $? ($(grep -E '^  [a-z_]|^ +Duration' $o/ncu-$n.txt | cut -c1-60 | tr -s ' ' | tr '\n' ';'))" >> $o/summary.txt
done
run A2 ab/wgmma-old.json 150
run N2 configs/gemm_wgmma.json 170
gzip -f $o/*/*.tuning.csv $o/*/*.json 2>/dev/null; rm -f $o/*/*.tuning.json.gz $o/ncu/*.tuning.*
tar -czf $OUT/tail2.tgz -C $OUT tail2
