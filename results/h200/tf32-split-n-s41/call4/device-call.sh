#!/usr/bin/env bash
# Session 41, call 4: suites/large.json's TF32 squares 5120-8192 from an empty cache (the committed
# binary), ncu of the 5888^3 winner and cuBLAS's kernel, and the split tail offered where the
# last wave is up to half full (SPLIT_K 2) against the committed config, A H A H, at three
# squares whose last wave is 47% full (configs given by --config in both arms).
set -x
tar -xJf .carry/bin.tar.xz
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/call4; mkdir -p $o
nvidia-smi > $o/gpu.txt 2>&1
t0=$(date +%s)
scripts/large-gpu.sh $o/large fp32 5120 8192
echo "large part 2: $(( $(date +%s) - t0 )) s"
echo '{"name": "tf32-5888", "problems": [{"family": "gemm", "M": 5888, "N": 5888, "K": 5888, "dtype": "fp32", "layout": "rr"}]}' > $o/s5888.json
KTUNE_CACHE_DIR=/tmp/ktune-large-fp32-cache timeout 120 ncu --target-processes all --set basic --clock-control none --cache-control all \
  -k "regex:^(ktune_gemm_wgmma|sm90|nvjet|cutlass)" --launch-count 6 -f -o $o/ncu5888 \
  build/ktune bench $o/s5888.json --configs-from $o/large/bench-large-fp32.json --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
  --out $o --stem ncu5888 --no-progress > $o/ncu5888.log 2>&1
ncu --import $o/ncu5888.ncu-rep --page details > $o/ncu5888.txt 2>&1
echo "ncu: $(( $(date +%s) - t0 )) s"
for turn in A1 H1 A2 H2; do
  cfg=configs/gemm_wgmma.json; [[ $turn == H* ]] && cfg=ab/half-tail.json
  [[ $(( $(date +%s) - t0 )) -gt 480 ]] && break
  KTUNE_CACHE_DIR=/tmp/kh-$turn build/ktune bench ab/half-s41.json --config $cfg --out $o --stem half-$turn --no-progress > $o/half-$turn.log 2>&1
  echo "half $turn rc=$? $(( $(date +%s) - t0 )) s"
done
cat $o/large/summary.txt; grep torch-check $o/large/torch-large-fp32.log
grep -E "^ *(ktune|cublas) " $o/half-*.log
grep -E "^  [a-z]|Duration|SM Frequency|Elapsed Cycles" $o/ncu5888.txt | head -40
cd $OUT && tar -czf call4.tgz call4 && rm -rf call4
