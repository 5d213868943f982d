#!/usr/bin/env bash
# Session 10's call on four H100s, code 2593205 (split-K's sums hold only the outputs a thread has;
# gemv and gemv_dot promise ptxas their occupancy): the same jobs as ../issue12-324699b/call.sh,
# which it ran word for word but for its scratch folder (/tmp/s10 instead of /tmp/s9): both anchor
# suites, hopper-dtypes and edges tuned afresh by the default guided search, each GPU's benches
# followed by PyTorch's cuBLAS under do_bench, and the GEMM GPU tests beside them.
exec bash "$(dirname "$0")/../issue12-324699b/call.sh" "$@"
