#!/usr/bin/env bash
# Runs the test suites of an already set-up build (scripts/setup.sh): the host tests, the
# offline compile check for sm_80 and sm_90a, and the GPU tests, which skip without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure -j"$(nproc)" "$@"
