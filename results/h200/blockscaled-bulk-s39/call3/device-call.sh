#!/usr/bin/env bash
# Session 39, call 3: the same configurations with HEAD's kernel (A: scales copied by warp 1, wait
# before promotion) and the new one (V: bulk scale copies by the TMA thread, promotion before the
# wait), over all of suites/blockscaled.json: session 22's winners (old-winners.json, from
# results/h200/blockscaled-ed30653) and call 2's (new-winners.json; 4096 x 7168 x 2048, which call
# 2 did not reach, is tuned), each against cuBLASLt in its own rounds, in turns A V (a second turn
# of the first set if time is left); then
# torch._scaled_mm under do_bench on V's first results, and ncu of V's winner and cuBLASLt at
# 4096 x 7168 x 16384.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
tar -xJf .carry/bin.tar.xz
out=$OUT/s39-3
mkdir -p "$out"
nvidia-smi > "$out/gpu.txt" 2>&1
say() { echo "$*" >> "$out/summary.txt"; }
turn() {  # NAME CONFIG WINNERS
  local t0=$SECONDS
  timeout 150 ./build/ktune bench ab/bs-all.json --config "$2" --configs-from "$3" --cache-dir "/tmp/c-$1" \
    --out "$out/$1" --stem "bench-$1" --no-progress > "$out/$1.log" 2>&1
  say "$1: exit $? in $((SECONDS - t0)) s"
}
turn A-old1 ab/old/gemm_wgmma.json ab/old-winners.json
turn V-old1 configs/gemm_wgmma.json ab/old-winners.json
turn A-new1 ab/old/gemm_wgmma.json ab/new-winners.json
turn V-new1 configs/gemm_wgmma.json ab/new-winners.json
t0=$SECONDS
timeout 60 python3 scripts/torch_gemm_check.py "$out/V-new1/bench-V-new1.json" --json "$out/torch-V-new1.json" > "$out/torch-V-new1.log" 2>&1
say "torch: exit $? in $((SECONDS - t0)) s"
t0=$SECONDS
NCU_SET=basic timeout 140 scripts/ncu-details.sh ./build/ktune "$out/ncu" bs-16 \
  '{"family":"gemm","M":4096,"N":7168,"K":16384,"dtype":"fp8","layout":"rc","scaling":"block"}' 'gemm|nvjet' 4 > "$out/ncu.log" 2>&1
say "ncu: exit $? in $((SECONDS - t0)) s"
if (( SECONDS < 400 )); then
  turn A-old2 ab/old/gemm_wgmma.json ab/old-winners.json
  turn V-old2 configs/gemm_wgmma.json ab/old-winners.json
else
  say "second round skipped at $SECONDS s"
fi
gzip -f "$out"/*/bench-*.json "$out"/*/*.tuning.csv 2>/dev/null
rm -f "$out"/*/*.tuning.json "$out"/ncu/*.ncu-rep
tar czf "$OUT/s39-3.tgz" -C "$OUT" s39-3
