#!/usr/bin/env bash
# Runs the tests of a set-up build (scripts/setup.sh), stage by stage, and says how long each took.
#   scripts/test.sh          host tests, the quick offline compile (every config, problem and tunable
#                            value once, for sm_80 and sm_90a) and the GPU tests, which skip
#                            themselves without a GPU: a few minutes on 2 cores.
#   scripts/test.sh --full   the same, and CI's full offline compile spread (up to 100 candidates of
#                            every config and problem, in parts that ctest balances; about 40 minutes
#                            on 2 cores). .ci/run calls this.
# Other arguments go to every ctest call (-R REGEX, -V, ...). Exit status: non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."

full=0
args=()
for a in "$@"; do
  if [[ $a == --full ]]; then full=1; else args+=("$a"); fi
done
if [[ ! -f build/CTestTestfile.cmake ]]; then
  echo "test: no build in ./build; run scripts/setup.sh first" >&2
  exit 2
fi

stages=(host compile_quick gpu)
(( full )) && stages+=(compile_full)
declare -A selects=([host]="-L host" [compile_quick]="-L compile_quick" [gpu]="-L gpu" [compile_full]="-L compile_full")

failed=()
summary=()
total_start=$SECONDS
for stage in "${stages[@]}"; do
  start=$SECONDS
  echo "== test stage: $stage"
  # shellcheck disable=SC2086  # the select is two words on purpose
  ctest --test-dir build --output-on-failure -j"$(nproc)" ${selects[$stage]} "${args[@]}"
  rc=$?
  (( rc != 0 )) && failed+=("$stage")
  summary+=("$(printf '%-14s %5d s  %s' "$stage" $((SECONDS - start)) "$( ((rc == 0)) && echo ok || echo FAILED)")")
done

echo "== test stages"
printf '%s\n' "${summary[@]}"
printf '%-14s %5d s\n' total $((SECONDS - total_start))
if (( ${#failed[@]} )); then
  echo "test: failed: ${failed[*]}" >&2
  exit 1
fi
