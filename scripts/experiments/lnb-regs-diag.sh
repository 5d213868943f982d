#!/usr/bin/env bash
# Diagnostics for issue 37 (session 18): LayerNorm backward REG_PARTIALS A/B at 4000 x 5001 (exhaustive), its GPU tests, ncu of its winner with the SASS source page, and ncu of cuDNN's few-row LayerNorm kernel.
# (As first run, its kernel regex was 'layernorm_bwd', which caught the reference kernel instead; fixed here.)
# Run from the repository root with OUT set.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
o=$OUT/c2; mkdir -p $o
timeout 200 ./build/ktune_gpu_tests --gtest_filter='MemoryBoundGpu.LayerNormBackward*:MemoryBoundGpu.APlantedWrongLayerNormBackward*' --gtest_brief=1 > $o/gpu-tests.log 2>&1; echo "gpu tests: $?"; tail -3 $o/gpu-tests.log
KTUNE_CACHE_DIR=/tmp/lnb-ex timeout 100 ./build/ktune layernorm_backward --rows 4000 --cols 5001 --dtype fp16 --exhaustive --retune --top 40 --out $o --no-progress > $o/exhaustive-4000x5001.log 2>&1; echo "exhaustive: $?"; head -22 $o/exhaustive-4000x5001.log | tail -18
KTUNE_CACHE_DIR=/tmp/lnb-ex timeout 120 scripts/ncu-details.sh ./build/ktune $o/ncu lnb-4000x5001 '{"family":"layernorm_backward","rows":4000,"cols":5001,"dtype":"fp16"}' '^ktune_layernorm_bwd' 1
timeout 60 ncu --import $o/ncu/lnb-4000x5001.ncu-rep --page source --csv --print-source sass > $o/ncu/lnb-4000x5001-sass.csv 2> $o/ncu/sass.err; echo "sass page: $? $(wc -l < $o/ncu/lnb-4000x5001-sass.csv)"
KTUNE_CACHE_DIR=/tmp/ln-cache timeout 120 scripts/ncu-details.sh ./build/ktune $o/ncu cudnn-ln-8x65536 '{"family":"layernorm","rows":8,"cols":65536,"dtype":"fp16"}' '^[^k]' 2
grep -E "^  [a-zA-Z_]|Duration|SM Active Cycles|Grid Size|Block Size|Cluster Size|Registers Per|Elapsed Cycles  " $o/ncu/cudnn-ln-8x65536.txt | head -20
rm -f $o/ncu/*.ncu-rep.bak; cd $OUT && tar czf x.tgz c2 && ls -la x.tgz
