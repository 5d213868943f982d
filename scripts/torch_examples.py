"""PyTorch beside a ktune suite: each operation written the way a PyTorch user (or vLLM's
forward_native) writes it, timed eager and under torch.compile by triton.testing.do_bench
(median, L2 cleared before each call), its output checked against an fp32 or fp64 reference.
Families: the declared-family examples (examples/) and the built-in softmax, layernorm, rmsnorm
and layernorm_backward (aten's native_layer_norm_backward from saved statistics, what autograd
runs). Run by scripts/examples-gpu.sh beside `ktune bench examples/examples.suite.json` and by
scripts/limits-gpu.sh beside `ktune bench suites/limits.json`, each in the same device call.

Usage: python3 scripts/torch_examples.py [--suite SUITE.json] [--min-bytes B] [--json OUT.json]
Bytes are the minimum traffic, counted as the declarations count them (every input read once,
every output written once, an in-place buffer both): GB/s = bytes / seconds / 1e9.
"""
import argparse
import json
import sys
import traceback

import torch
import torch._dynamo
from triton.testing import do_bench

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "i32": torch.int32}


def rope(x, cos_sin):
    # GPT-NeoX rotation over the last dimension, cos and sin the two halves of the cache row.
    half = x.shape[-1] // 2
    cos, sin = cos_sin[:, None, :half], cos_sin[:, None, half:]
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


def rope_reference(x, cos_sin):
    return rope(x.float(), cos_sin.float())


def residual_rmsnorm(x, residual, weight, eps=1e-6):
    # vLLM's RMSNorm.forward_native with a residual: the sum in fp32, stored in the input dtype.
    s = x.float() + residual.float()
    new_residual = s.to(x.dtype)
    v = s.pow(2).mean(dim=-1, keepdim=True)
    return (s * torch.rsqrt(v + eps)).to(x.dtype) * weight, new_residual


def residual_rmsnorm_reference(x, residual, weight, eps=1e-6):
    s = (x.float() + residual.float()).to(x.dtype).double()
    y = s * torch.rsqrt(s.pow(2).mean(dim=-1, keepdim=True) + eps) * weight.double()
    return y.float(), s.float()


def histogram(ids, bins):
    return torch.bincount(ids, minlength=bins)


def add(a, b):
    return a + b


def softmax(x):
    return torch.softmax(x, dim=-1)


def layernorm(x, w, b, eps=1e-5):
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, eps)


def rmsnorm(x, w, eps=1e-5):
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps)


def layernorm_backward(dy, x, mean, rstd, w, b):
    # The gradients autograd computes from the forward pass's saved statistics: dX, dW and dB.
    return torch.ops.aten.native_layer_norm_backward(dy, x, (x.shape[-1],), mean, rstd, w, b, [True, True, True])


def layernorm_backward_reference(dy, x, mean, rstd, w):
    xhat = (x.double() - mean.double()) * rstd.double()
    g = dy.double() * w.double()
    dx = rstd.double() * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    return [dx.float(), (dy.double() * xhat).sum(0).float(), dy.double().sum(0).float()]


def make_case(family, dims, dtype):
    """(function, args, reference outputs, bytes, tolerance)"""
    dt = DTYPES[dtype]
    g = torch.Generator(device="cuda").manual_seed(20261127)
    if family == "rope":
        t, h, d = dims["tokens"], dims["heads"], dims["head_dim"]
        x = torch.randn(t, h, d, device="cuda", generator=g).to(dt)
        cs = (torch.rand(t, d, device="cuda", generator=g) * 2 - 1).to(dt)
        nbytes = 2 * x.numel() * x.element_size() + cs.numel() * cs.element_size()
        return rope, (x, cs), [rope_reference(x, cs)], nbytes, 3e-2
    if family == "residual_rmsnorm":
        r, hd = dims["rows"], dims["hidden"]
        x = torch.randn(r, hd, device="cuda", generator=g).to(dt)
        res = torch.randn(r, hd, device="cuda", generator=g).to(dt)
        w = (1 + 0.1 * torch.randn(hd, device="cuda", generator=g)).to(dt)
        nbytes = 4 * x.numel() * x.element_size() + w.numel() * w.element_size()
        return residual_rmsnorm, (x, res, w), list(residual_rmsnorm_reference(x, res, w)), nbytes, 3e-2
    if family == "histogram":
        n, bins = dims["n"], dims["bins"]
        ids = torch.randint(0, bins, (n,), device="cuda", generator=g, dtype=torch.int32)
        ref = torch.bincount(ids.long(), minlength=bins)
        return (lambda i: histogram(i, bins)), (ids,), [ref], n * 4 + bins * 4, 0
    if family in ("add", "vector_add"):
        n = dims["N"]
        a = torch.randn(n, device="cuda", generator=g).to(dt)
        b = torch.randn(n, device="cuda", generator=g).to(dt)
        return add, (a, b), [a.float() + b.float()], 3 * n * a.element_size(), 1e-2
    if family in ("softmax", "layernorm", "rmsnorm", "layernorm_backward"):
        r, c = dims["rows"], dims["cols"]
        x = torch.randn(r, c, device="cuda", generator=g).to(dt)
        w = (1 + 0.1 * torch.randn(c, device="cuda", generator=g)).to(dt)
        b = (0.1 * torch.randn(c, device="cuda", generator=g)).to(dt)
        e = x.element_size()
        if family == "softmax":
            return softmax, (x,), [torch.softmax(x.double(), -1).float()], 2 * r * c * e, 1e-2
        if family == "layernorm":
            ref = torch.nn.functional.layer_norm(x.double(), (c,), w.double(), b.double(), 1e-5).float()
            return layernorm, (x, w, b), [ref], 2 * r * c * e + 2 * c * e + 8 * r, 3e-2
        if family == "rmsnorm":
            ref = torch.nn.functional.rms_norm(x.double(), (c,), w.double(), 1e-5).float()
            return rmsnorm, (x, w), [ref], 2 * r * c * e + c * e + 4 * r, 3e-2
        dy = torch.randn(r, c, device="cuda", generator=g).to(dt)
        xd = x.double()
        mean = xd.mean(-1, keepdim=True)
        rstd = torch.rsqrt(xd.var(-1, unbiased=False, keepdim=True) + 1e-5)
        mean, rstd = mean.float(), rstd.float()
        # dW and dB sum over every row: compared relative to their own scale, sqrt(rows).
        refs = layernorm_backward_reference(dy, x, mean, rstd, w)
        return (layernorm_backward, (dy, x, mean, rstd, w, b), refs, 3 * r * c * e + 3 * c * e + 8 * r,
                3e-2 * max(1.0, r ** 0.5 / 8))
    raise ValueError(f"no PyTorch version of {family}")


def check(outputs, references, tol):
    outputs = outputs if isinstance(outputs, (tuple, list)) else [outputs]
    worst = 0.0
    for out, ref in zip(outputs, references):
        if tol == 0:
            if not torch.equal(out.long(), ref.long()):
                return False, float("inf")
            continue
        err = ((out.float() - ref.float()).abs() / (1 + ref.float().abs())).max().item()
        worst = max(worst, err)
    return worst <= tol, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--suite", default="examples/examples.suite.json")
    parser.add_argument("--ncu", metavar="FAMILY",
                        help="for ncu: run the torch.compile version of FAMILY's first problem 10 times, nothing else")
    parser.add_argument("--min-bytes", type=float, default=64e6,
                        help="torch.compile only problems that move at least this much (compiling costs ~15 s a shape)")
    args = parser.parse_args()
    suite = json.load(open(args.suite))
    if args.ncu:
        p = next(p for p in suite["problems"] if p["family"] == args.ncu)
        fn, inputs, _, _, _ = make_case(p["family"], {k: v for k, v in p.items() if k not in ("family", "dtype")}, p["dtype"])
        f = torch.compile(fn, dynamic=False)
        for _ in range(3):  # compiling and any autotuning happen here, outside the range ncu keeps
            f(*inputs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("ktune_measure")
        for _ in range(10):
            f(*inputs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        return
    rows = []
    for p in suite["problems"]:
        family, dtype = p["family"], p["dtype"]
        dims = {k: v for k, v in p.items() if k not in ("family", "dtype")}
        if family == "add":
            continue  # the built-in family is ktune's own comparison; vector_add has the PyTorch row
        row = {"family": family, "dims": dims, "dtype": dtype}
        try:
            fn, inputs, refs, nbytes, tol = make_case(family, dims, dtype)
            row["bytes"] = nbytes
            for mode in ("eager", "compile"):
                if mode == "compile" and nbytes < args.min_bytes:
                    continue
                if mode == "compile":
                    # One function compiled for many shapes reaches dynamo's recompile limit (8) and
                    # then runs eagerly without a word: the limits suite's 9th and 10th softmax rows
                    # were timed so in results/h200/lnb-s43 call 7. A fresh cache for each problem.
                    torch._dynamo.reset()
                f = fn if mode == "eager" else torch.compile(fn, dynamic=False)
                ok, err = check(f(*inputs), refs, tol)
                ms = do_bench(lambda: f(*inputs), warmup=25, rep=200, return_mode="median")
                row[mode] = {"ms": ms, "gbps": nbytes / (ms * 1e-3) / 1e9, "correct": ok, "max_rel_err": err}
        except Exception as e:  # a failing case is reported, the others still run
            traceback.print_exc()
            row["error"] = f"{type(e).__name__}: {e}"
        rows.append(row)
        desc = f"{family} {dims} {dtype}"
        if "error" in row:
            print(f"{desc}: {row['error']}")
        else:
            print(desc + ": " + ", ".join(f"{m} {row[m]['ms']:.4f} ms ({row[m]['gbps']:.0f} GB/s, correct {row[m]['correct']})"
                                          for m in ("eager", "compile") if m in row))
        sys.stdout.flush()
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "rows": rows}
    if args.json:
        json.dump(out, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
