#!/bin/bash
# suites/edges.json tuned afresh by the default guided search, from the binary built here (the last of the device time).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
R=/tmp/ed; rm -rf $R; mkdir -p $R
KTUNE_CACHE_DIR=/tmp/kc-ed timeout 280 ./build/ktune bench suites/edges.json --out $R --stem bench-edges --no-progress > $R/bench-edges.log 2>&1
echo "edges exit $?: $(grep -h 'Geometric mean' $R/bench-edges.md 2>/dev/null)"
tar -czf $OUT/ed.tgz -C /tmp ed
