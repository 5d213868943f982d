#!/usr/bin/env bash
# The GPU machine's whole job: build, run the GPU tests, run the benchmark sweep cold and with a
# warm compile cache, check the cache answer and `ktune verify`, measure the device's ceilings and
# write a roofline report, run the benchmark suite twice and compare the runs; logs and result
# files go to OUTDIR (summary.txt first; everything else in gpu-check.tar.gz).
#   scripts/gpu-check.sh OUTDIR [extra ktune gemm args...]
# KTUNE_GPU_STAGES picks stages (default: tests,gemm,report,bench): tests, gemm, report, bench,
# anchors (issue 3's shape suites in bf16 and fp16, tuned and measured by one `ktune bench` each;
# anchors-bf16 or anchors-fp16 for one of them), families (the memory-bound families' suites next to
# Triton and PyTorch; KTUNE_FAMILY_SUITES picks the suites, KTUNE_TRITON_CASES the Triton cases,
# KTUNE_NCU_PICKS the problems ncu times again, as SUITE:I,J..., KTUNE_SKIP_ODD and KTUNE_SKIP_NCU
# skip the odd-size subcommands and ncu),
# attention (suites/attention.json, or KTUNE_ATTENTION_SUITE, next to PyTorch's SDPA backends),
# dtypes (fp8 and TF32 at 4096^3 and 8192^3), search (the guided search's times against the
# exhaustive one; KTUNE_SEARCH_QUICK=1 leaves out the 1000^3 cr exhaustive search), sweeps (exhaustive
# sweeps kept whole, KTUNE_SWEEP_SHAPES), gpus (--gpus all against one GPU),
# torch-gemm (PyTorch's cuBLAS under do_bench beside every GEMM bench of the call),
# suite-NAME (any suites/NAME.json) and verify-results
# (scripts/verify-bench.py over the committed results/h100 bench files). The cache lives in
# $KTUNE_CACHE_DIR (default /tmp/ktune-gpu-check-cache), so stages split over calls on a machine
# that stayed warm reuse it.
# KTUNE_GPU_TESTS_DEVICE=N runs the tests stage on GPU N in the background while the other stages
# run (give those the other GPUs: KTUNE_BENCH_ARGS="--gpus 0").
# The GPU machine has no GoogleTest package: copy Debian's sources to .deps/googletest and carry
# that folder (cp -r /usr/src/googletest .deps/). To run binaries built on the development machine
# instead, scripts/pack-binaries.sh packs them small enough for the copy's size limit. On an H200
# the whole GPU test suite runs longer than one 600 s call: split it with KTUNE_GPU_TEST_REGEX (or
# --gtest_filter on packed binaries). The ragged-shape GEMM test is one instance a dtype for that
# reason (EveryDtype/GemmKernelsRagged.*/fp16 took 243 s there, fp8 38 s).
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

stages=${KTUNE_GPU_STAGES:-tests,gemm,report,bench}
# KTUNE_REMEASURE=1: suites (and the fidelity check) measure the configurations the committed
# results/h100/bench-SUITE.json files record instead of tuning (`bench --configs-from`).
# KTUNE_BENCH_ARGS: extra arguments for the suites' `ktune bench`, e.g. "--samples 100 --rounds 10".
remeasure_fidelity=()
[[ -n ${KTUNE_REMEASURE:-} ]] && remeasure_fidelity=(results/h100/bench-anchors-fp16.json results/h100/bench-anchors-bf16.json)
stage() { [[ ",$stages," == *",$1,"* ]]; }
export KTUNE_CACHE_DIR=${KTUNE_CACHE_DIR:-/tmp/ktune-gpu-check-cache}

# GPU tests (kernels vs cuBLAS over dtypes/layouts/ragged shapes, planted faults, timing sanity).
# KTUNE_GPU_TESTS_DEVICE=N: the tests run on GPU N alone (CUDA_VISIBLE_DEVICES), in the background,
# while the later stages run (give those the other GPUs, e.g. KTUNE_BENCH_ARGS="--gpus 0");
# the script waits for them before packing up.
run_gpu_tests() {
  # KTUNE_GPU_TEST_REGEX: only the GPU tests whose names match (ctest -R), e.g. "MemoryBound".
  ctest --test-dir build-gpu -L gpu ${KTUNE_GPU_TEST_REGEX:+-R "$KTUNE_GPU_TEST_REGEX"} --output-on-failure \
    > "$out/logs/gpu-tests.log" 2>&1
  say "gpu tests: exit $? — $(grep -E 'tests passed|tests failed' "$out/logs/gpu-tests.log")"
}
tests_pid=
if stage tests; then
  if [[ -n ${KTUNE_GPU_TESTS_DEVICE:-} ]]; then
    CUDA_VISIBLE_DEVICES=$KTUNE_GPU_TESTS_DEVICE run_gpu_tests &
    tests_pid=$!
  else
    run_gpu_tests
  fi
fi

timed() {  # timed NAME ARGS... : runs ktune, logs, prints wall seconds
  local name=$1; shift
  local t0=$(date +%s.%N)
  "$ktune" "$@" --no-progress > "$out/logs/$name.log" 2>&1
  local rc=$?
  say "$name: exit $rc, $(elapsed "$t0") s wall  (ktune $*)"
}
# The benchmark: ktune gemm --m 4096, first with an empty compile cache, then warm.
if stage gemm; then
  rm -rf "$KTUNE_CACHE_DIR"
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
fi

# The device's ceilings and a roofline report of the cold sweep.
if stage report; then
  "$ktune" ceilings > "$out/logs/ceilings.log" 2>&1; say "ceilings: exit $?"; tail -n 6 "$out/logs/ceilings.log" | tee -a "$summary"
  cp "$KTUNE_CACHE_DIR/ceilings.json" "$out/results/" 2>/dev/null
  for f in "$out"/results/gemm-*.json; do
    [ -e "$f" ] || continue
    "$ktune" report "$f" > "$out/logs/report.log" 2>&1; say "report: exit $? ($f)"
  done
fi

# The default suite, measured twice with the same code, and a third time with every tuned kernel
# made 5% slower on the GPU (a calibrated spin after each launch, inside the timed interval): the
# regression gate's self-test. BASE vs the rerun must show no `slower`; BASE vs the planted run
# must flag the problems. The first run is the committed baseline (results/h100/bench-default.json.gz).
if stage bench; then
  timed bench-1 bench suites/default.json --format gbench --out "$out/results" --stem bench-default
  timed bench-2 bench suites/default.json --no-tune --format gbench --out "$out/results" --stem bench-rerun
  timed bench-planted bench suites/default.json --no-tune --plant-delay 5 --out "$out/results" --stem bench-planted-5
  for new in rerun planted-5; do
    "$ktune" compare "$out/results/bench-default.json" "$out/results/bench-$new.json" \
      --markdown "$out/results/compare-default-vs-$new.md" > "$out/results/compare-default-vs-$new.txt" 2>&1
    say "compare default vs $new: exit $?"; tee -a "$summary" < "$out/results/compare-default-vs-$new.txt"
  done
  grep -h "planted delay" "$out/logs/bench-planted.log" | head -n 20 | tee -a "$summary"
  cat "$out/results/bench-default.md" >> "$summary" 2>/dev/null
fi

# Timing fidelity: ktune's cuBLAS medians against triton's do_bench on PyTorch's call, and ktune's
# ratios (events and CUPTI timers) against the ratio of ncu's kernel durations.
if stage fidelity; then
  t0=$(date +%s.%N)
  python3 scripts/fidelity.py "$ktune" "$out/results/fidelity" "${remeasure_fidelity[@]}" > "$out/logs/fidelity.log" 2>&1
  say "fidelity: exit $?, $(elapsed "$t0") s wall"; tail -n 6 "$out/logs/fidelity.log" | tee -a "$summary"
fi

# The memory-bound families (issue 10): their suites tuned and measured against cuDNN and the
# copy roof, the subcommands once each on odd sizes, and Triton's tutorial-style kernels and
# PyTorch's ops on the same shapes, in the same call (scripts/triton_memory_bound.py).
if stage families; then
  if [[ -z ${KTUNE_SKIP_ODD:-} ]]; then
    timed add-odd add --n 1000003 --dtype fp16 --out "$out/results"
    timed softmax-odd softmax --rows 999 --cols 1023 --dtype bf16 --out "$out/results"
    timed layernorm-odd layernorm --rows 999 --cols 1023 --dtype bf16 --out "$out/results"
    timed rmsnorm-odd rmsnorm --rows 1001 --cols 3001 --dtype fp16 --out "$out/results"
  fi
  for suite in ${KTUNE_FAMILY_SUITES:-memory-bound softmax-rows norms layernorm-backward bias-gelu-dropout}; do
    # shellcheck disable=SC2086
    timed "bench-$suite" bench "suites/$suite.json" --out "$out/results" --stem "bench-$suite" ${KTUNE_BENCH_ARGS:-}
    cat "$out/results/bench-$suite.md" >> "$summary" 2>/dev/null
    grep -E "^(error|warning)" "$out/logs/bench-$suite.log" | head -n 20 | tee -a "$summary"
  done
  # ncu's kernel durations against ktune's medians for problems of the suites just run:
  # KTUNE_NCU_PICKS lists SUITE:INDEX,INDEX... (suites whose bench did not run are skipped).
  if [[ -z ${KTUNE_SKIP_NCU:-} ]]; then
    for pick in ${KTUNE_NCU_PICKS:-softmax-rows:7,9,12 norms:0,6,12,18}; do
      suite=${pick%%:*}
      [[ -f $out/results/bench-$suite.json ]] || continue
      # shellcheck disable=SC2046  # the indices are words
      python3 scripts/ncu_memory_bound.py "$ktune" "$out/results/bench-$suite.json" "$out/results/ncu-$suite" \
        $(tr ',' ' ' <<< "${pick#*:}") >> "$out/logs/ncu-memory-bound.log" 2>&1
    done
    grep ncu-check "$out/logs/ncu-memory-bound.log" | tee -a "$summary"
  fi
  t0=$(date +%s.%N)
  python3 scripts/triton_memory_bound.py --json "$out/results/triton-memory-bound.json" ${KTUNE_TRITON_CASES:-} \
    > "$out/logs/triton-memory-bound.log" 2>&1
  say "triton-memory-bound: exit $?, $(elapsed "$t0") s wall"; grep -E "triton-ref|FAIL|ERROR|GPU" "$out/logs/triton-memory-bound.log" | tee -a "$summary"
fi

# The attention family: a suite (KTUNE_ATTENTION_SUITE, default attention) benched against cuDNN's
# fused SDPA, then PyTorch's SDPA backends on the same problems in the same call.
if stage attention; then
  suite=${KTUNE_ATTENTION_SUITE:-attention}
  suite_file=suites/$suite.json
  # A path names a suite file of its own (scripts/suite_part.py writes parts of a long one).
  if [[ $suite == *.json ]]; then suite_file=$suite; suite=$(basename "$suite" .json); fi
  # shellcheck disable=SC2086
  timed "bench-$suite" bench "$suite_file" --out "$out/results" --stem "bench-$suite" ${KTUNE_BENCH_ARGS:-}
  cat "$out/results/bench-$suite.md" >> "$summary" 2>/dev/null
  grep -E "^(error|warning)" "$out/logs/bench-$suite.log" | head -n 20 | tee -a "$summary"
  t0=$(date +%s.%N)
  python3 scripts/torch_attention.py "$suite_file" --json "$out/results/torch-$suite.json" \
    > "$out/logs/torch-$suite.log" 2>&1
  say "torch-$suite: exit $?, $(elapsed "$t0") s wall"
  cat "$out/logs/torch-$suite.log" >> "$summary"
  # ktune's timing of cuDNN against PyTorch's, problem by problem (an independent timer).
  python3 scripts/attention_timer_check.py "$out/results/bench-$suite.json" "$out/results/torch-$suite.json" \
    > "$out/results/attention-timer-check-$suite.txt" 2>&1
  tail -n 2 "$out/results/attention-timer-check-$suite.txt" | tee -a "$summary"
fi

# Issue 3's suites: each `ktune bench` tunes every problem it has no cached winner for, then
# measures the winner against cuBLAS in turns and prints the per-shape ratios and their geomean.
# A stage suite-NAME benches suites/NAME.json the same way.
extra_suites=$(tr ',' '\n' <<< "$stages" | sed -n 's/^suite-//p')
for suite in anchors-bf16 anchors-fp16 hopper-dtypes $extra_suites; do
  case $suite in
    hopper-dtypes) stage dtypes || continue ;;
    anchors-*) stage anchors || stage "$suite" || continue ;;
  esac
  remeasure=()
  [[ -n ${KTUNE_REMEASURE:-} && -f results/h100/bench-$suite.json ]] &&
    remeasure=(--configs-from "results/h100/bench-$suite.json")
  # shellcheck disable=SC2086  # KTUNE_BENCH_ARGS is a list of words
  timed "bench-$suite" bench "suites/$suite.json" --out "$out/results" --stem "bench-$suite" ${KTUNE_BENCH_ARGS:-} \
    "${remeasure[@]}"
  cat "$out/results/bench-$suite.md" >> "$summary" 2>/dev/null
  grep -E "^(error|warning)" "$out/logs/bench-$suite.log" | head -n 20 | tee -a "$summary"
done

# The guided search's speed and quality (issue 13): ktune gemm --m 4096 with an empty compile cache
# and an empty best-config cache, again with the compile cache warm (best configs emptied again),
# then the exhaustive search in the same call; a new layout at 1000^3 cold (its instantiations are
# not compiled yet), and its exhaustive search.
if stage search; then
  search_cache=/tmp/ktune-search-cache
  rm -rf "$search_cache"
  timed search-4096-cold gemm --m 4096 --cache-dir "$search_cache" --out "$out/results/search-cold"
  rm -f "$search_cache/best_configs.json"
  timed search-4096-warm gemm --m 4096 --cache-dir "$search_cache" --out "$out/results/search-warm"
  timed search-4096-exhaustive gemm --m 4096 --retune --exhaustive --cache-dir "$search_cache" \
    --out "$out/results/search-exhaustive"
  timed search-1000-cr-cold gemm --m 1000 --layout cr --cache-dir "$search_cache" --out "$out/results/search-cr"
  # KTUNE_SEARCH_QUICK=1 leaves out the 1000^3 cr exhaustive search (a minute).
  [[ -z ${KTUNE_SEARCH_QUICK:-} ]] &&
    timed search-1000-cr-exhaustive gemm --m 1000 --layout cr --retune --exhaustive --cache-dir "$search_cache" \
      --out "$out/results/search-cr-exhaustive"
  for name in 4096-cold 4096-warm 4096-exhaustive 1000-cr-cold 1000-cr-exhaustive; do
    [[ -f $out/logs/search-$name.log ]] || continue
    say "search-$name: $(grep -E '^ +1 ' "$out/logs/search-$name.log" | head -n 1)"
    grep -E '^ +ref |^candidates:|^search:' "$out/logs/search-$name.log" | tee -a "$summary"
  done
fi

# Every GPU of the host (issue 13): suites/scale.json (16 GEMM problems) benched with --gpus all,
# then on GPU 0 alone, each with its own empty compile and best-config caches, so both tune and
# compile everything; the wall times are the comparison, and the winners of both runs must pass.
if stage gpus; then
  rm -rf /tmp/ktune-gpus-all /tmp/ktune-gpus-one
  timed bench-scale-gpus-all bench suites/scale.json --gpus all --cache-dir /tmp/ktune-gpus-all \
    --out "$out/results" --stem bench-scale-gpus-all
  timed bench-scale-gpus-one bench suites/scale.json --gpus 0 --cache-dir /tmp/ktune-gpus-one \
    --out "$out/results" --stem bench-scale-gpus-one
  grep -h -E "^\[[0-9]+/[0-9]+\]" "$out/logs/bench-scale-gpus-all.log" | head -n 20 | tee -a "$summary"
fi

# Exhaustive sweeps whose every candidate's time is kept: the data the search order (a config's
# "estimate") is judged by. KTUNE_SWEEP_SHAPES lists DTYPE:LAYOUT:MxNxK words; each sweep's
# passing candidates go to sweeps/DTYPE-LAYOUT-MxNxK.csv (config, parameters, median ms).
if stage sweeps; then
  mkdir -p "$out/results/sweeps"
  for shape in ${KTUNE_SWEEP_SHAPES:-fp16:rr:4096x4096x4096}; do
    IFS=: read -r dtype layout dims <<< "$shape"
    IFS=x read -r m n k <<< "$dims"
    name=$dtype-$layout-$dims
    timed "sweep-$name" gemm --m "$m" --n "$n" --k "$k" --dtype "$dtype" --layout "$layout" --retune --exhaustive \
      --out "$out/results/sweeps/full-$name"
    python3 scripts/sweep_passed.py "$out/results/sweeps/full-$name"/*.csv > "$out/results/sweeps/$name.csv"
    rm -rf "$out/results/sweeps/full-$name"
  done
fi

# The winners recorded in the committed H100 bench files, re-verified with fresh inputs.
if stage verify-results; then
  python3 scripts/verify-bench.py "$ktune" results/h100/bench-anchors-bf16.json results/h100/bench-anchors-fp16.json \
    results/h100/bench-hopper-dtypes.json results/h100/bench-decode.json results/h100/bench-odd-strides.json \
    > "$out/logs/verify-results.log" 2>&1
  say "verify-results: exit $? — $(tail -n 1 "$out/logs/verify-results.log")"
  grep FAIL "$out/logs/verify-results.log" | head -n 20 | tee -a "$summary"
fi

# An independent timer for this call's GEMM benches: PyTorch's call of cuBLAS under do_bench,
# beside ktune's timing of cuBLAS and of its winner (scripts/torch_gemm_check.py).
if stage torch-gemm; then
  for results in "$out"/results/bench-*.json; do
    [[ -f $results ]] || continue
    name=$(basename "$results" .json)
    python3 scripts/torch_gemm_check.py "$results" --json "$out/results/torch-$name.json" \
      > "$out/logs/torch-$name.log" 2>&1
    say "torch-$name: $(tail -n 1 "$out/logs/torch-$name.log")"
  done
fi

[[ -n $tests_pid ]] && wait "$tests_pid"
tar -czf "$out/gpu-check.tar.gz" -C "$out" logs results && rm -rf "$out/logs" "$out/results"
