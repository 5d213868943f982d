#!/usr/bin/env bash
# Session 41, call 1: TF32 4864^3-5888^3 (issue 38's TF32 dips) on session 38's winners:
# sustained (the default bench) against isolated launches (--cooldown), clocks and power sampled,
# ncu of the 5888^3 winner and cuBLAS's kernel at the clocks they run, do_bench of PyTorch's call.
set -x
tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/tf32; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
k=build/ktune
export KTUNE_CACHE_DIR=/tmp/kc
smi() { nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 20 > $o/smi-$1.csv & echo $!; }
p=$(smi sustained1)
$k bench ab/tf32-s41.json --configs-from ab/tf32-call3.json --out $o --stem sustained1 --no-progress > $o/sustained1.log 2>&1
kill $p
p=$(smi cooldown)
$k bench ab/tf32-s41.json --configs-from ab/tf32-call3.json --cooldown 20 --out $o --stem cooldown --no-progress > $o/cooldown.log 2>&1
kill $p
python3 scripts/torch_gemm_check.py $o/sustained1.json --json $o/torch-sustained1.json > $o/torch-sustained1.log 2>&1
# ncu: both kernels at 5888^3 at the clocks they run, caches flushed
echo '{"name": "tf32-5888", "problems": [{"family": "gemm", "M": 5888, "N": 5888, "K": 5888, "dtype": "fp32", "layout": "rr"}]}' > $o/s5888.json
timeout 240 ncu --target-processes all --set full --clock-control none --cache-control all \
  -k "regex:^(ktune_gemm_wgmma|sm90|nvjet|cutlass)" --launch-count 4 -f -o $o/ncu5888 \
  $k bench $o/s5888.json --configs-from ab/tf32-call3.json --no-hold --samples 2 --rounds 1 --warmup-ms 1 \
  --out $o --stem ncu5888 --no-progress > $o/ncu5888.log 2>&1
ncu --import $o/ncu5888.ncu-rep --page details > $o/ncu5888.txt 2>&1
ncu --import $o/ncu5888.ncu-rep --page raw --csv > $o/ncu5888-raw.csv 2>&1
p=$(smi sustained2)
$k bench ab/tf32-s41.json --configs-from ab/tf32-call3.json --out $o --stem sustained2 --no-progress > $o/sustained2.log 2>&1
kill $p
grep -E "ratio|x " $o/*.log | head -40
cd $OUT && tar -czf tf32.tgz tf32 && rm -rf tf32
