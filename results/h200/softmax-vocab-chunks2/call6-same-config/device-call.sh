#!/usr/bin/env bash
# session 23 device call 6: bench/search GPU tests after the results-file change; ncu counters of one
# register softmax kernel at 4000 x 50257 against 4000 x 50256 (what do odd rows cost?)
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
o=$OUT/c6; mkdir -p $o
(cd build && timeout 150 ./ktune_gpu_tests --gtest_filter='Bench.*:Search.*' > $o/gpu-tests.log 2>&1; echo "test exit $?" >> $o/gpu-tests.log)
tail -3 $o/gpu-tests.log
m1=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
m2=lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for cols in 50257 50256; do for m in $m1 $m2; do
  timeout 60 ncu --clock-control none --cache-control all -k regex:ktune_softmax_rows --launch-count 3 --metrics $m \
    ./build/ktune softmax --rows 4000 --cols $cols --dtype fp16 --config ab/reg1024.json --cache-dir $o/cache --no-progress > $o/ncu-$cols-$(echo $m | cut -c1-4).txt 2>&1
  echo "== $cols $m exit $?"; grep -E "^ +(gpu__|dram__|lts__|l1tex__)" $o/ncu-$cols-$(echo $m | cut -c1-4).txt | head -15
done; done | tee $o/ncu-summary.txt
rm -rf $o/cache
tar -czf $OUT/c6.tgz -C $OUT c6 && rm -rf $o
