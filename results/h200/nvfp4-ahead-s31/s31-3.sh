#!/usr/bin/env bash
# Session 31, call 3: suites/nvfp4.json with AHEAD (156d6bf's binary) from an empty cache, PyTorch's
# cuBLAS under do_bench, ncu for two winners; then AHEAD=2 (AHEAD 1 plus an L1 prefetch of the next
# chunk's activations, the working tree's kernel) against 0 and 1 in a small exhaustive config.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $O/gpu.txt
export KTUNE_CACHE_DIR=/tmp/nv-cache
t0=$SECONDS
timeout 280 build/ktune bench suites/nvfp4.json --out $O --stem bench-nvfp4 --no-progress > $O/bench-nvfp4.log 2>&1
echo "bench exit $? in $((SECONDS-t0)) s" >> $O/summary.txt
timeout 100 python3 scripts/torch_gemm_check.py $O/bench-nvfp4.json --json $O/torch-nvfp4.json > $O/torch-nvfp4.log 2>&1
echo "torch exit $?" >> $O/summary.txt
for i in 1 10; do
  problem=$(python3 -c "import json,sys; print(json.dumps(json.load(open('suites/nvfp4.json'))['problems'][int(sys.argv[1])]))" "$i")
  NCU_SET=basic timeout 60 scripts/ncu-details.sh build/ktune $O/ncu nvfp4-$i "$problem" 'nvfp4|nvjet|gemv|gemm|sm90' 6 >> $O/summary.txt 2>&1
done
unset KTUNE_CACHE_DIR
for rep in 1 2; do
  for p in "1 4096 14336" "8 4096 14336" "1 14336 4096" "1 4096 4096"; do set -- $p
    timeout 40 build/ktune gemm_nvfp4 --m $1 --n $2 --k $3 --config ab/nv-ahead2.json --exhaustive \
      --cache-dir /tmp/a2-$rep-$1-$2-$3 --out $O/a2 --no-progress > $O/a2-$rep-$1-$2-$3.log 2>&1
  done
done
nvidia-smi --query-gpu=clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv >> $O/gpu.txt
rm -f $O/ncu/*.ncu-rep
tar czf $OUT/r.tgz -C $OUT r
