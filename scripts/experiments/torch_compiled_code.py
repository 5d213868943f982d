"""Print the Triton code torch.compile generates for one of scripts/torch_examples.py's cases, so
ktune's kernel can be compared with the one it is measured against.

Usage: python3 scripts/experiments/torch_compiled_code.py FAMILY DTYPE DIM=VALUE...
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import torch  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

from torch_examples import make_case  # noqa: E402

family, dtype, *dims = sys.argv[1:]
fn, inputs, _, _, _ = make_case(family, {k: int(v) for k, v in (d.split("=") for d in dims)}, dtype)
_, code = run_and_get_code(torch.compile(fn, dynamic=False), *inputs)
print("\n\n".join(code))
