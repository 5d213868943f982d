#!/usr/bin/env bash
# Session 33, call 5: issue 36's examples on main (5430b68's binaries) on the H200: the declared
# families' suite against the copy roof, each planted-fault sweep, PyTorch eager and torch.compile
# under do_bench and ncu of both (scripts/examples-gpu.sh), then the family walkthrough's host test,
# whose GPU steps run to the end where a GPU answers (it finds the tree at /work/main, as built).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
[[ -e /work/main ]] || { mkdir -p /work && ln -s "$PWD" /work/main; }
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
timeout 420 scripts/examples-gpu.sh $O/ex build/ktune > $O/examples-gpu.log 2>&1
echo "examples-gpu exit $? in $SECONDS s" >> $O/summary.txt
t0=$SECONDS
timeout 100 build/ktune_host_tests --gtest_filter='FamilyWalkthrough.*' > $O/walkthrough.txt 2>&1
echo "walkthrough exit $? in $((SECONDS - t0)) s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
