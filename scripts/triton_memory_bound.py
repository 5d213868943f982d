"""Reference points for ktune's memory-bound kernel families: Triton kernels and PyTorch's own ops
for vector add, row softmax, layer-norm forward and RMSNorm forward, each verified against an
fp32 torch reference and timed by triton.testing.do_bench (median where the installed version
offers it). Run by scripts/gpu-check.sh (stage `families`) on the GPU machine, next to ktune.
The Triton kernels are written for this project but follow the algorithms of Triton's tutorials
(01 vector add, 02 fused softmax, 05 layer norm); the RMSNorm kernel is the layer-norm one
without the mean and the bias.

Usage: python3 scripts/triton_memory_bound.py [--json OUT.json] [CASE...]
  CASE = FAMILY:DTYPE:SHAPE, FAMILY in add|softmax|layernorm|rmsnorm, DTYPE in fp32|fp16|bf16,
  SHAPE = N for add, ROWSxCOLS otherwise: add:fp32:268435456, softmax:fp16:8192x8192,
  layernorm:fp16:4096x8192, rmsnorm:bf16:4096x8192. No CASE: the default list below.
Bytes are the minimum traffic, counted as ktune counts them; GB/s = bytes / seconds / 1e9.
"""
import argparse
import inspect
import json
import sys
import traceback

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from triton.testing import do_bench

DEFAULT_CASES = [
    "add:fp32:268435456",
    "softmax:fp16:8192x8192",
    "softmax:fp16:32768x4096",
    "softmax:fp16:4096x32768",
    "layernorm:fp16:4096x8192",
    "layernorm:fp16:16384x4096",
    "layernorm:bf16:4096x8192",
    "layernorm:bf16:16384x4096",
    "rmsnorm:fp16:4096x8192",
    "rmsnorm:fp16:16384x4096",
    "rmsnorm:bf16:4096x8192",
    "rmsnorm:bf16:16384x4096",
]
DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
# (atol, rtol) for outputs stored in each dtype; the check is |y - ref| <= atol + rtol * |ref|.
TOLERANCES = {"fp32": (1e-4, 1e-4), "fp16": (1e-2, 1e-2), "bf16": (3e-2, 2e-2)}
EPS = 1e-5


# ---------------------------------------------------------------------------------------------
# Triton kernels


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK_SIZE: tl.constexpr):
    # One program adds one contiguous block of BLOCK_SIZE elements; the tail block is masked.
    idx = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    inside = idx < n
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(c_ptr + idx, a + b, mask=inside)


@triton.jit
def softmax_kernel(y_ptr, x_ptr, x_stride, y_stride, rows, cols, BLOCK_SIZE: tl.constexpr,
                   STAGES: tl.constexpr):
    # Persistent: program p handles rows p, p + P, p + 2P, ... Each row is held whole in
    # registers (BLOCK_SIZE >= cols), so X is read once and Y written once.
    offs = tl.arange(0, BLOCK_SIZE)
    inside = offs < cols
    for r in tl.range(tl.program_id(0), rows, tl.num_programs(0), num_stages=STAGES):
        v = tl.load(x_ptr + r * x_stride + offs, mask=inside, other=-float("inf")).to(tl.float32)
        e = tl.exp(v - tl.max(v, axis=0))
        out = e / tl.sum(e, axis=0)
        tl.store(y_ptr + r * y_stride + offs, out.to(y_ptr.dtype.element_ty), mask=inside)


@triton.jit
def layernorm_fwd_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                         BLOCK_SIZE: tl.constexpr):
    # One program per row; three passes over the row in BLOCK_SIZE chunks: the mean, the
    # (biased) variance around it, then y = (x - mean) * rstd * w + b. Statistics in fp32.
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        c = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        c = start + tl.arange(0, BLOCK_SIZE)
        v = tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32)
        d = tl.where(c < N, v - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / N + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        c = start + tl.arange(0, BLOCK_SIZE)
        m = c < N
        v = tl.load(x_row + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m).to(tl.float32)
        b = tl.load(b_ptr + c, mask=m).to(tl.float32)
        out = (v - mean) * rstd * w + b
        tl.store(y_row + c, out.to(y_ptr.dtype.element_ty), mask=m)


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, y_ptr, w_ptr, rstd_ptr, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    # The layer-norm kernel without the mean and the bias: rstd = 1/sqrt(mean(x^2) + eps),
    # y = x * rstd * w.
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        c = start + tl.arange(0, BLOCK_SIZE)
        v = tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32)
        acc += v * v
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, N, BLOCK_SIZE):
        c = start + tl.arange(0, BLOCK_SIZE)
        m = c < N
        v = tl.load(x_row + c, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=m).to(tl.float32)
        tl.store(y_row + c, (v * rstd * w).to(y_ptr.dtype.element_ty), mask=m)


# ---------------------------------------------------------------------------------------------
# Launch configuration (host side), following the tutorials' heuristics


def device_limits():
    """(SM count, registers per block, shared memory per block, warp size)."""
    try:
        p = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
        return p["multiprocessor_count"], p["max_num_regs"], p["max_shared_mem"], p["warpSize"]
    except Exception as e:  # older Triton: take what torch knows, H100-like defaults otherwise
        print(f"triton-ref note: Triton device properties unavailable ({e}); using torch's")
        p = torch.cuda.get_device_properties(torch.cuda.current_device())
        return (p.multi_processor_count, getattr(p, "regs_per_multiprocessor", 65536),
                getattr(p, "shared_memory_per_block_optin", 232448), 32)


def softmax_config(x, y):
    """BLOCK_SIZE = next power of two of cols, 8 warps, 4 pipeline stages where shared memory
    is over 200 KB (else 2), and as many persistent programs as fit on the GPU at once, from the
    compiled kernel's register and shared-memory use (at most one per row). If the compiler
    runs out of shared memory at that stage count, fewer stages are tried (noted)."""
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    num_warps = 8
    n_sm, n_regs_max, smem_max, warp = device_limits()
    stages = 4 if smem_max > 200000 else 2
    programs = rows
    for st in sorted({stages, 2, 1}, reverse=True):
        if st > stages:
            continue
        try:
            k = softmax_kernel.warmup(y, x, x.stride(0), y.stride(0), rows, cols,
                                      BLOCK_SIZE=block, STAGES=st, num_warps=num_warps, grid=(1,))
            k._init_handles()
            md = k.metadata
            smem = md["shared"] if isinstance(md, dict) else md.shared
            occupancy = n_regs_max // (k.n_regs * warp * num_warps)
            if smem > 0:
                occupancy = min(occupancy, smem_max // smem)
            programs = min(n_sm * max(occupancy, 1), rows)
            if st != stages:
                print(f"triton-ref note: softmax {rows}x{cols} uses {st} stages, not {stages} "
                      "(out of shared memory)")
            stages = st
            break
        except Exception as e:
            if type(e).__name__ == "OutOfResources":
                continue
            print(f"triton-ref note: softmax occupancy unavailable ({e!r}); one program per row")
            break
    return dict(grid=(programs,), BLOCK_SIZE=block, STAGES=stages, num_warps=num_warps)


def norm_config(x):
    """BLOCK_SIZE = min(64 KB of elements, next power of two of N); warps = BLOCK_SIZE / 256
    clamped to [1, 8]."""
    block = min(65536 // x.element_size(), triton.next_power_of_2(x.shape[1]))
    return dict(BLOCK_SIZE=block, num_warps=min(max(block // 256, 1), 8))


# ---------------------------------------------------------------------------------------------
# Cases: each family gives the minimum bytes and a list of (impl, run, check); run() computes
# into its outputs and returns them, check(outputs) returns (ok, message).


def poisoned(shape, dtype):
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def close(got, ref, atol, rtol):
    """All finite and |got - ref| <= atol + rtol * |ref| elementwise (ref in fp32)."""
    got = got.float()
    if not bool(torch.isfinite(got).all()):
        return False, "non-finite values (NaN poison left or overflow)"
    err = (got - ref).abs()
    bad = int((err > atol + rtol * ref.abs()).sum())
    return bad == 0, f"max_abs_err={float(err.max()):.3g} bad={bad}"


def all_close(pairs):
    msgs, ok = [], True
    for name, got, ref, atol, rtol in pairs:
        good, msg = close(got, ref, atol, rtol)
        ok = ok and good
        msgs.append(f"{name}: {msg}")
    return ok, "; ".join(msgs)


def case_add(dt, shape):
    n = shape["n"]
    dtype = DTYPES[dt]
    atol, rtol = TOLERANCES[dt]
    a = torch.randn(n, dtype=dtype, device="cuda")
    b = torch.randn(n, dtype=dtype, device="cuda")
    ref = a.float() + b.float()
    c_tri = poisoned((n,), dtype)
    c_torch = poisoned((n,), dtype)
    block = 1024
    grid = (triton.cdiv(n, block),)

    def run_triton():
        add_kernel[grid](a, b, c_tri, n, BLOCK_SIZE=block)
        return c_tri

    def run_torch():
        return torch.add(a, b, out=c_torch)

    def check(c):
        return close(c, ref, atol, rtol)

    nbytes = 3 * n * a.element_size()
    return nbytes, [("triton", run_triton, check), ("torch", run_torch, check)]


def case_softmax(dt, shape):
    rows, cols = shape["rows"], shape["cols"]
    dtype = DTYPES[dt]
    _, rtol = TOLERANCES[dt]
    # Softmax values are about 1/cols, so an absolute tolerance of 1e-2 would accept anything.
    atol = 1e-6 if dt == "fp32" else 1e-5
    x = torch.randn(rows, cols, dtype=dtype, device="cuda")
    ref = torch.softmax(x.float(), dim=-1)
    y = poisoned((rows, cols), dtype)
    cfg = softmax_config(x, y)
    grid = cfg.pop("grid")

    def run_triton():
        softmax_kernel[grid](y, x, x.stride(0), y.stride(0), rows, cols, **cfg)
        return y

    def run_torch():
        return torch.softmax(x, dim=-1)

    def check(out):
        return close(out, ref, atol, rtol)

    nbytes = 2 * rows * cols * x.element_size()
    return nbytes, [("triton", run_triton, check), ("torch", run_torch, check)]


def case_layernorm(dt, shape):
    rows, cols = shape["rows"], shape["cols"]
    dtype = DTYPES[dt]
    atol, rtol = TOLERANCES[dt]
    x = torch.randn(rows, cols, dtype=dtype, device="cuda")
    w = torch.randn(cols, dtype=dtype, device="cuda")
    b = torch.randn(cols, dtype=dtype, device="cuda")
    xf = x.float()
    ref = F.layer_norm(xf, (cols,), w.float(), b.float(), EPS)
    var_ref, mean_ref = torch.var_mean(xf, dim=-1, correction=0)
    rstd_ref = torch.rsqrt(var_ref + EPS)
    y = poisoned((rows, cols), dtype)
    mean = poisoned((rows,), torch.float32)
    rstd = poisoned((rows,), torch.float32)
    cfg = norm_config(x)

    def run_triton():
        layernorm_fwd_kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, EPS, **cfg)
        return y, mean, rstd

    def run_torch():
        return F.layer_norm(x, (cols,), w, b, EPS)

    def check_triton(outs):
        yy, mm, rr = outs
        return all_close([("y", yy, ref, atol, rtol), ("mean", mm, mean_ref, 1e-4, 1e-3),
                          ("rstd", rr, rstd_ref, 1e-4, 1e-3)])

    def check_torch(out):
        return close(out, ref, atol, rtol)

    e = x.element_size()
    nbytes = 2 * rows * cols * e + 2 * cols * e + 2 * rows * 4
    return nbytes, [("triton", run_triton, check_triton), ("torch", run_torch, check_torch)]


def case_rmsnorm(dt, shape):
    rows, cols = shape["rows"], shape["cols"]
    dtype = DTYPES[dt]
    atol, rtol = TOLERANCES[dt]
    x = torch.randn(rows, cols, dtype=dtype, device="cuda")
    w = torch.randn(cols, dtype=dtype, device="cuda")
    xf = x.float()
    rstd_ref = torch.rsqrt(xf.pow(2).mean(dim=-1) + EPS)
    ref = xf * rstd_ref[:, None] * w.float()
    y = poisoned((rows, cols), dtype)
    rstd = poisoned((rows,), torch.float32)
    cfg = norm_config(x)

    def run_triton():
        rmsnorm_fwd_kernel[(rows,)](x, y, w, rstd, x.stride(0), cols, EPS, **cfg)
        return y, rstd

    def check_triton(outs):
        yy, rr = outs
        return all_close([("y", yy, ref, atol, rtol), ("rstd", rr, rstd_ref, 1e-4, 1e-3)])

    def check_torch(out):
        return close(out, ref, atol, rtol)

    impls = [("triton", run_triton, check_triton)]
    if hasattr(F, "rms_norm"):
        impls.append(("torch", lambda: F.rms_norm(x, (cols,), w, EPS), check_torch))
    else:
        impls.append(("torch", None, "torch.nn.functional.rms_norm not available"))
    e = x.element_size()
    nbytes = 2 * rows * cols * e + cols * e + rows * 4
    return nbytes, impls


FAMILIES = {"add": case_add, "softmax": case_softmax, "layernorm": case_layernorm,
            "rmsnorm": case_rmsnorm}


def parse_case(text):
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in FAMILIES or parts[1] not in DTYPES:
        raise ValueError(f"bad case {text!r}: want FAMILY:DTYPE:SHAPE with FAMILY in "
                         f"{sorted(FAMILIES)} and DTYPE in {sorted(DTYPES)}")
    family, dt, s = parts
    if family == "add":
        shape = {"n": int(s)}
    else:
        r, c = s.lower().split("x")
        shape = {"rows": int(r), "cols": int(c)}
    return family, dt, shape, s


# ---------------------------------------------------------------------------------------------
# Timing


def make_bench():
    """A median-returning wrapper around do_bench with its default warmup and rep."""
    params = inspect.signature(do_bench).parameters
    if "return_mode" in params:
        return (lambda fn: do_bench(fn, return_mode="median")), "median (return_mode)"
    if "quantiles" in params:
        return (lambda fn: do_bench(fn, quantiles=[0.5])), "median (quantiles=[0.5])"
    if "percentiles" in params:
        return (lambda fn: do_bench(fn, percentiles=(0.5,))), "median (percentiles=(0.5,))"
    return (lambda fn: do_bench(fn)), "do_bench default"


def scalar(v):
    while isinstance(v, (list, tuple)):
        v = v[0]
    return float(v)


def run_case(text, bench):
    """Measures one case; returns (result entries, number of failures)."""
    label = text
    try:
        family, dt, shape, s = parse_case(text)
        label = f"{family} {dt} {s}"
        torch.manual_seed(0)
        nbytes, impls = FAMILIES[family](dt, shape)
    except Exception as e:
        print(f"triton-ref {label} ERROR: {e!r}")
        traceback.print_exc()
        return [], 1
    results, failures = [], 0
    for impl, run, check in impls:
        if run is None:
            print(f"triton-ref {label} impl={impl} SKIP ({check})")
            continue
        entry = {"family": family, "dtype": dt, "shape": shape, "impl": impl,
                 "median_ms": None, "gbps": None, "bytes": nbytes, "verified": False}
        results.append(entry)
        try:
            out = run()
            torch.cuda.synchronize()
            ok, msg = check(out)
            del out
            if not ok:
                failures += 1
                entry["error"] = msg
                print(f"triton-ref {label} impl={impl} FAIL {msg}")
                continue
            ms = scalar(bench(run))
            gbps = nbytes / (ms * 1e-3) / 1e9
            entry.update(median_ms=ms, gbps=gbps, verified=True)
            print(f"triton-ref {label} impl={impl} ms={ms:.4f} GB/s={gbps:.1f}")
        except Exception as e:
            failures += 1
            entry["error"] = repr(e)
            print(f"triton-ref {label} impl={impl} ERROR: {e!r}")
            traceback.print_exc()
    return results, failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", help="write the results as a JSON list to this file")
    ap.add_argument("cases", nargs="*", help="FAMILY:DTYPE:SHAPE (default: the built-in list)")
    args = ap.parse_args()

    bench, mode = make_bench()
    print(f"triton-ref gpu={torch.cuda.get_device_name()} torch={torch.__version__} "
          f"triton={triton.__version__} timing=do_bench {mode}")
    results, failures = [], 0
    for text in args.cases or DEFAULT_CASES:
        r, f = run_case(text, bench)
        results += r
        failures += f
        torch.cuda.empty_cache()  # the case's tensors died with run_case's frame
        if args.json:  # rewritten after every case, so a crash later keeps what was measured
            with open(args.json, "w") as fh:
                json.dump(results, fh, indent=1)
                fh.write("\n")
    print(f"triton-ref done: {len(results)} results, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
