#!/usr/bin/env python3
"""Self-contained copies of a revision's split-K kernels, for an A/B against the working tree.

ktune compiles a --kernel file against the .cuh headers built into the binary, so a kernel of
another revision is given its own splitk.cuh inline, in namespace splitk_head:
  git archive <rev> kernels | tar -x -C .scratch/k-head
  python3 results/h100/splitk-ab-2593205/make-head-variants.py .scratch/k-head/kernels
writes gemv_inl.cu, gemv_dot_inl.cu and gemm_mma_inl.cu beside the originals.
"""
import sys

d = sys.argv[1]
header = open(f"{d}/splitk.cuh").read().replace("#pragma once", "").replace("namespace splitk {", "namespace splitk_head {")
for name in ["gemv.cu", "gemv_dot.cu", "gemm_mma.cu"]:
    src = open(f"{d}/{name}").read()
    assert src.count('#include "splitk.cuh"') == 1, name
    src = src.replace("splitk::reduce_splits", "splitk_head::reduce_splits")
    src = src.replace("splitk::counters_per_tile", "splitk_head::counters_per_tile")
    src = src.replace('#include "splitk.cuh"', '#include "splitk.cuh"\n' + header)
    open(f"{d}/{name[:-3]}_inl.cu", "w").write(src)
