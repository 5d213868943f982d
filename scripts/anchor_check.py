"""An independent look at the reference: cuBLAS through PyTorch, timed by triton's do_bench
(median, its own L2 flush), on the same GPU as a gpu-check run. If ktune's cuBLAS line and this
disagree by much, ktune's measurement needs explaining. Also shows whether ktune's input
scaling (B ~ N(0,1)/sqrt(K)) changes cuBLAS's speed compared with plain randn inputs.
Usage: python3 scripts/anchor_check.py [M]"""
import sys

import torch
from triton.testing import do_bench

m = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
flops = 2.0 * m * m * m
for dtype in (torch.float16, torch.bfloat16):
    a = torch.randn(m, m, device="cuda", dtype=dtype)
    b = torch.randn(m, m, device="cuda", dtype=dtype)
    b_scaled = b / m**0.5
    for name, bb in (("randn", b), ("B/sqrt(K)", b_scaled)):
        ms = do_bench(lambda: torch.matmul(a, bb), warmup=200, rep=500, return_mode="median")
        print(f"anchor torch.matmul {m}^3 {str(dtype)[6:]:9s} {name:10s} {ms:.4f} ms {flops / ms / 1e9:7.1f} TFLOPS")
