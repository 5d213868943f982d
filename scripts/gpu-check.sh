#!/usr/bin/env bash
# The GPU machine's whole job in one call: build, run the GPU tests, run the benchmark sweep cold
# and with a warm compile cache, check the cache answer and `ktune verify`, and leave logs and
# result files in OUTDIR (summary.txt first; everything else in gpu-check.tar.gz).
#   scripts/gpu-check.sh OUTDIR [extra ktune gemm args...]
# The GPU machine has no GoogleTest package: copy Debian's sources to .deps/googletest and carry
# that folder (cp -r /usr/src/googletest .deps/).
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUTDIR}
shift
mkdir -p "$out/logs" "$out/results"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
summary="$out/summary.txt"
say() { echo "$*" | tee -a "$summary"; }
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv \
  > "$out/logs/nvidia-smi.txt" 2>&1
say "gpu: $(tail -n 1 "$out/logs/nvidia-smi.txt")"

generator=(); command -v ninja >/dev/null && generator=(-G Ninja)
start=$(date +%s.%N)
if ! { cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release && cmake --build build-gpu -j"$(nproc)"; } \
    > "$out/logs/build.log" 2>&1; then
  tail -n 60 "$out/logs/build.log"; say "BUILD FAILED"; exit 1
fi
say "build: $(elapsed "$start") s"
ktune=$PWD/build-gpu/ktune

# GPU tests (kernels vs cuBLAS over dtypes/layouts/ragged shapes, planted faults, timing sanity).
ctest --test-dir build-gpu -L gpu --output-on-failure > "$out/logs/gpu-tests.log" 2>&1
say "gpu tests: exit $? — $(grep -E 'tests passed|tests failed' "$out/logs/gpu-tests.log")"

# The benchmark: ktune gemm --m 4096, first with an empty compile cache, then warm.
export KTUNE_CACHE_DIR=$(mktemp -d)
timed() {  # timed NAME ARGS... : runs ktune, logs, prints wall seconds
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$ktune" "$@" --no-progress > "$out/logs/$name.log" 2>&1
  local rc=$?
  say "$name: exit $rc, $(elapsed "$t0") s wall  (ktune $*)"
}
timed gemm-4096-cold gemm --m 4096 --out "$out/results" "$@"
timed gemm-4096-warm gemm --m 4096 --retune --out "$out/results/warm" "$@"
timed gemm-4096-cached gemm --m 4096 "$@"
timed verify verify
grep -E "^ +(1|2|3|ref) |candidates:" "$out/logs/gemm-4096-cold.log" | tee -a "$summary"
grep -E "^ +(1|ref) |candidates:" "$out/logs/gemm-4096-warm.log" | tee -a "$summary"
grep -E "cached best" "$out/logs/gemm-4096-cached.log" | tee -a "$summary"
tail -n 3 "$out/logs/verify.log" | tee -a "$summary"

# An independent measurement of the reference (PyTorch's cuBLAS under triton's do_bench).
python3 scripts/anchor_check.py 4096 2>&1 | grep anchor | tee -a "$summary"

tar -czf "$out/gpu-check.tar.gz" -C "$out" logs results && rm -rf "$out/logs" "$out/results"
