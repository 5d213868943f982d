#!/usr/bin/env bash
# Session 35, call 2: cooperative tiles of 256 rows whose two consumers hold more than 128
# accumulators a thread (256 x 144-192; until now only pingpong tiles did). First every such
# candidate on ragged shapes (each verified against the library by the sweep), then, on large
# squares, every such candidate (exhaustive over ab/coop-wide.json) beside HEAD's built-in config
# (ab/old-config.json, default guided search), both from empty caches, each against cuBLAS /
# cuBLASLt in its own rounds.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
O=$OUT/r; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $O/gpu.txt
SECONDS=0
cat > $O/ragged.json <<'J'
{"name": "ragged", "problems": [
 {"family":"gemm","M":1000,"N":1096,"K":712,"dtype":"fp16","layout":"rr"},
 {"family":"gemm","M":777,"N":1000,"K":520,"dtype":"bf16","layout":"rc"},
 {"family":"gemm","M":1000,"N":1104,"K":704,"dtype":"fp8","layout":"rc"},
 {"family":"gemm","M":600,"N":904,"K":1000,"dtype":"fp16","layout":"cc"}]}
J
cat > $O/squares.json <<'J'
{"name": "squares", "problems": [
 {"family":"gemm","M":4096,"N":4096,"K":4096,"dtype":"fp16","layout":"rr"},
 {"family":"gemm","M":5120,"N":5120,"K":5120,"dtype":"fp16","layout":"rr"},
 {"family":"gemm","M":6144,"N":6144,"K":6144,"dtype":"fp16","layout":"rr"},
 {"family":"gemm","M":8192,"N":8192,"K":8192,"dtype":"bf16","layout":"rr"},
 {"family":"gemm","M":3840,"N":3840,"K":3840,"dtype":"fp8","layout":"rc"},
 {"family":"gemm","M":5120,"N":5120,"K":5120,"dtype":"fp8","layout":"rc"},
 {"family":"gemm","M":6656,"N":6656,"K":6656,"dtype":"fp8","layout":"rc"}]}
J
timeout 100 build/ktune bench $O/ragged.json --config ab/coop-wide.json --kernel kernels/gemm_wgmma.cu --exhaustive --cache-dir /tmp/cr --out $O --stem ragged --no-progress > $O/ragged.log 2>&1
echo "ragged exit $? at $SECONDS s" >> $O/summary.txt
timeout 220 build/ktune bench $O/squares.json --config ab/coop-wide.json --kernel kernels/gemm_wgmma.cu --exhaustive --cache-dir /tmp/cw --out $O --stem wide --no-progress > $O/wide.log 2>&1
echo "wide exit $? at $SECONDS s" >> $O/summary.txt
timeout 230 build/ktune bench $O/squares.json --config ab/old-config.json --kernel kernels/gemm_wgmma.cu --cache-dir /tmp/co --out $O --stem old --no-progress > $O/old.log 2>&1
echo "old exit $? at $SECONDS s" >> $O/summary.txt
tar czf $OUT/r.tgz -C $OUT r
