#!/usr/bin/env bash
# Prepared in session 35: the fp32 (TF32) instance of the ragged GEMM test and TF32 stream-K's
# every-candidate test (364 s on an H200 in session 30).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
SECONDS=0
for f in 'GemmKernels.WgmmaStreamKTf32MajorsAndCopiedOperandsEveryCandidate' 'EveryDtype/GemmKernelsRagged.*/fp32'; do
  left=$((580 - SECONDS)); [[ $left -lt 30 ]] && break
  timeout $left build/ktune_gpu_tests --gtest_filter="$f" >> $O/gpu-tests.txt 2>&1
  echo "$f: exit $? at $SECONDS s" >> $O/summary.txt
done
tar czf $OUT/r.tgz -C $OUT r
