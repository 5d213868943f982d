#!/usr/bin/env bash
# Session 42, call 4 (HEAD's binary): where ktune's 128x256 fp16 winner spends power against cuBLAS's
# 256x128 1x2-cluster kernel at 2048^3, 2816^3, 4096^3: ncu (clocks uncontrolled, caches flushed)
# for the winner (CLUSTER_M 1, GROUP_M 16), the same tile in 2-CTA clusters, and GROUP_M 8; then
# the three pinned configurations benched against cuBLAS sample by sample, twice in turns.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
r=$OUT/r; mkdir -p $r/ncu $r/bench
nvidia-smi > $r/gpu.txt 2>&1
M=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__cycles_elapsed.avg,smsp__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed
for v in cm1 cm2 gm8; do
  timeout 70 ncu --metrics $M --clock-control none --cache-control all -k 'regex:^(ktune_gemm_wgmma|nvjet)' --launch-count 18 --csv --page raw \
    build/ktune bench ab/pin-suite.json --configs-from ab/pin-$v.json --no-tune --no-hold --samples 3 --rounds 1 --warmup-ms 1 \
    --out /tmp/ncu-$v --stem x --no-progress > $r/ncu/$v.csv 2> $r/ncu/$v.err
  echo "ncu $v: $?" | tee -a $r/summary.txt
done
for turn in 1 2; do for v in cm1 cm2 gm8; do
  timeout 45 build/ktune bench ab/pin-suite.json --configs-from ab/pin-$v.json --out $r/bench/$v-$turn --stem b --no-progress > $r/bench/$v-$turn.log 2>&1
  echo "bench $v $turn: $?" | tee -a $r/summary.txt
done; done
cp ab/call4-s42.sh $r/device-call.sh
tar czf $OUT/r.tgz -C $OUT r
