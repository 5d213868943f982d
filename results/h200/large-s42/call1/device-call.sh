#!/usr/bin/env bash
# Session 42, call 1: GPC cluster probe; suites/large.json TF32 squares whole under the half-wave
# split tail (4e67910); fp16 squares on the current binary (s26 was the last whole fp16 pass).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
nvidia-smi -q > $r/gpu-full.txt 2>&1; nvidia-smi > $r/gpu.txt 2>&1
(nvcc -arch=sm_90a -o /tmp/cluster_probe ab/cluster_probe.cu && /tmp/cluster_probe) > $r/cluster-probe.txt 2>&1 || (/usr/local/cuda/bin/nvcc -arch=sm_90a -o /tmp/cluster_probe ab/cluster_probe.cu && /tmp/cluster_probe) >> $r/cluster-probe.txt 2>&1
timeout 200 scripts/large-gpu.sh $r/fp32-a fp32 2048 4864
timeout 200 scripts/large-gpu.sh $r/fp32-b fp32 5120 8192
timeout 250 scripts/large-gpu.sh $r/fp16 fp16 2048 8000
cp ab/call1-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
