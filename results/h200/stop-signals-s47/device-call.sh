#!/usr/bin/env bash
# Session 47, call 5: the stop signals taken by one thread (workers and detached runs spawned with
# no signal blocked): the GPU tests that start, kill and restart workers and spawn detached
# tunings; a SIGTERM in the middle of a GPU tuning; two fp16 squares with do_bench beside.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi > $r/gpu.txt 2>&1
timeout 420 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*:PlantedFaults.*:Bench.*:Search.*:RuntimeGpu.*:BadInputOnGpu.*:MemoryBoundGpu.APlanted*:MemoryBoundGpu.AnRmsNorm*:Timing.*' > $r/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $r/gpu-tests.txt
{
  export KTUNE_CACHE_DIR=/tmp/sig-cache
  for s in TERM INT; do
    timeout -s $s 6 ./build/ktune gemm --m 4096 --no-progress --out /tmp/sig-out > /tmp/sig-$s.log 2>&1
    echo "SIG$s after 6 s: exit $? (timeout says 124), lines $(wc -l < /tmp/sig-$s.log), last: $(tail -1 /tmp/sig-$s.log | cut -c1-100)"
    sleep 1
    echo "ktune processes left: $(pgrep -c -f 'build/ktune' || true)"
  done
} > $r/signals.txt 2>&1
timeout 120 scripts/large-gpu.sh $r/fp16 fp16 2048 2560 > /dev/null 2>&1
python3 - $r/fp16 > $r/fp16-squares.txt 2>&1 <<'PY'
import sys, pathlib
d = pathlib.Path(sys.argv[1])
for f in ("summary.txt", "torch-large-fp16.log"):
    p = d / f
    print(p.read_text() if p.exists() else f"{f}: missing")
PY
gzip -f $r/fp16/*.json $r/fp16/*.tuning.csv 2>/dev/null
cp ab/call5.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
