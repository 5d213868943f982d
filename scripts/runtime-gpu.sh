#!/usr/bin/env bash
# The runtime library on the GPU, in one call: a GEMM and an add tuned into an empty cache by the
# installed ktune, `ktune export --bundle`, examples/app built against the installed package with
# find_package(ktune) and run (the tuned GEMM shape and an untuned one nearby checked against
# cuBLAS, the add against the host, the time per call through the runtime, the host's price per
# launch against a raw cuLaunchKernel), and ncu's durations of the same kernels launched by the
# app and by `ktune bench --no-tune`, one timer for both.
#   scripts/runtime-gpu.sh OUTDIR PREFIX     PREFIX: `cmake --install build --prefix PREFIX`
set -uo pipefail
out=${1:?usage: scripts/runtime-gpu.sh OUTDIR PREFIX}
prefix=$(cd "${2:?usage: scripts/runtime-gpu.sh OUTDIR PREFIX}" && pwd)
cd "$(dirname "$0")/.."
mkdir -p "$out"
out=$(cd "$out" && pwd)
ktune=$prefix/bin/ktune
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-runtime-cache}
say() { echo "$*" | tee -a "$out/summary.txt"; }

"$ktune" gemm --m 4096 --n 4096 --k 4096 --dtype fp16 --out "$out/tune" --no-progress > "$out/tune-gemm.log" 2>&1
say "tune gemm 4096^3 fp16: exit $?"
"$ktune" add --n 67108864 --dtype fp16 --out "$out/tune" --no-progress > "$out/tune-add.log" 2>&1
say "tune add 2^26 fp16: exit $?"
"$ktune" export --bundle "$out/bundle" > "$out/export.log" 2>&1
say "export --bundle: exit $? ($(tail -n 1 "$out/export.log"))"

app=/tmp/ktune-app-build
{ cmake -S examples/app -B "$app" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release && cmake --build "$app"; } \
  > "$out/app-build.log" 2>&1
say "app build: exit $?"
"$app/ktune_app" "$out/bundle" 4096 4096 4096 > "$out/app.log" 2>&1
say "app: exit $?"
cat "$out/app.log" >> "$out/summary.txt"

# One timer for both: ncu's kernel durations, caches flushed before each kernel.
printf '{"name": "runtime", "problems": [{"family": "gemm", "M": 4096, "N": 4096, "K": 4096, "dtype": "fp16"}, {"family": "add", "N": 67108864, "dtype": "fp16"}]}\n' \
  > "$out/runtime.suite.json"
# The app launches the tuned GEMM shape 54 times before anything else, then the nearby shape,
# then the add: ncu takes the first 54 of each kernel it is given.
for kernel in ktune_gemm ktune_add; do
  NCU_ARGS="--launch-count 54" python3 scripts/experiments/ncu_sweep.py "$out/ncu-app-$kernel.csv" "$kernel" --top 2 -- \
    "$app/ktune_app" "$out/bundle" 4096 4096 4096 >> "$out/ncu-app.txt" 2>&1
done
say "ncu app: exit $?"; cat "$out/ncu-app.txt" >> "$out/summary.txt"
python3 scripts/experiments/ncu_sweep.py "$out/ncu-bench.csv" 'ktune_gemm|ktune_add' --top 6 -- \
  "$ktune" bench "$out/runtime.suite.json" --no-tune --no-hold --samples 20 --rounds 1 --warmup-ms 1 \
  --out "$out/ncu-bench" --stem ncu-bench --no-progress > "$out/ncu-bench.txt" 2>&1
say "ncu bench: exit $?"; cat "$out/ncu-bench.txt" >> "$out/summary.txt"
