#!/usr/bin/env bash
# Prepared in session 36: the fp32 (TF32) instance of the ragged GEMM test, alone (it was still
# running 242 s after it started when session 36's call ended), then the nvfp4 decode GPU test.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
for f in 'EveryDtype/GemmKernelsRagged.*/fp32' 'GemmKernels.Nvfp4WeightsEveryCandidateAndMisreadFormatsRejected'; do
  left=$((580 - SECONDS)); [[ $left -lt 30 ]] && break
  timeout $left build/ktune_gpu_tests --gtest_filter="$f" >> $O/gpu-tests.txt 2>&1
  echo "$f: exit $? at $SECONDS s" >> $O/summary.txt
done
tar czf $OUT/r.tgz -C $OUT r
