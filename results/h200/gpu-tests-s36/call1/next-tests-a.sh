#!/usr/bin/env bash
# Prepared in session 35 for the next session's first call: the GPU tests session 35 could not run
# (bf16 and fp32 instances of the ragged GEMM test, stream-K's counter read, block-scaled fp8,
# planted faults, bench, bad input, runtime). About 480 s on an H200 by earlier timings.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
for f in 'EveryDtype/GemmKernelsRagged.*/bf16' 'GemmKernels.WgmmaStreamKCounterReadThatMissesStillSums:GemmKernels.WgmmaBlockScaledEveryCandidateAndOneScaleATensorRejected:PlantedFaults.*:Fp8Baseline.*' 'Bench.*:Search.*:RuntimeGpu.*'; do
  left=$((580 - SECONDS)); [[ $left -lt 30 ]] && break
  timeout $left build/ktune_gpu_tests --gtest_filter="$f" >> $O/gpu-tests.txt 2>&1
  echo "$f: exit $? at $SECONDS s" >> $O/summary.txt
done
tar czf $OUT/r.tgz -C $OUT r
