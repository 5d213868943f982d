#!/usr/bin/env bash
# Session 47, call 3: the committed early barrier probe (P, the binary's own kernel) against HEAD's
# kernel (A, ab/head) at M = 4096, each tuned by the default search from an empty cache; the
# block-scaled GPU tests; suites/blockscaled.json's M = 4096 part with PyTorch's _scaled_mm under
# do_bench and ncu at 4096 x 4096 x 7168.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r
# HEAD's kernel: the tree's, less this session's diff
mkdir -p ab/head/kernels && cp kernels/gemm_wgmma.cu kernels/cp_async.cuh kernels/hopper_async.cuh kernels/tile_order.cuh kernels/tma.cuh kernels/wgmma.cuh ab/head/kernels/
(cd ab/head && patch -R -p1 < ../probe.diff) > $r/patch.txt 2>&1
nvidia-smi > $r/gpu.txt 2>&1
ROUNDS=1 BUDGET_S=250 TURN_S=125 scripts/experiments/config-ab.sh $r/ab ab/bs4096.json \
  A=ab/head/gemm_wgmma.json P=configs/gemm_wgmma.json
for t in A1 P1; do echo "== $t"; grep -E "^\[|  cublas |  ktune " $r/ab/$t.log; done > $r/ab-summary.txt 2>&1
timeout 170 ./build/ktune_gpu_tests --gtest_filter='GemmKernels.WgmmaBlockScaled*:Fp8Baseline.*' > $r/gpu-tests.txt 2>&1
echo "gpu tests exit $?" >> $r/gpu-tests.txt
KTUNE_NCU_PICKS="4" NCU_SET=basic timeout 170 scripts/blockscaled-gpu.sh $r/suite 4096 4096
gzip -f $r/suite/*.json $r/suite/*.tuning.csv 2>/dev/null; rm -f $r/suite/ncu/*.ncu-rep
cp ab/call3.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
