"""An independent timer for a GEMM bench: each problem of a ktune results file is run again
through PyTorch's call of the same library (torch.matmul on views with the problem's layouts; fp32
with TF32 allowed; fp8 through torch._scaled_mm, with per-tensor scales and fast accumulation or,
for --scaling block, fp32 scales per 1 x 128 of A and 128 x 128 of B, which it hands to
cuBLASLt's block-scaled matmul), timed by triton's do_bench (median, its own L2 flush), and
printed beside ktune's timing of cuBLAS and of its winner from the file. gemm_nvfp4 problems run
as what their baseline is, x @ W.t() with 16-bit weights (cuBLAS again), so "ktune vs torch" is the
4-bit kernel against the 16-bit library call. Run it in the same device call as the bench.
Usage: python3 scripts/torch_gemm_check.py RESULTS.json [--json OUT]"""
import argparse
import json
import math

import torch
from triton.testing import do_bench
from results_file import load_json


def winner(records):
    """ktune's winner: a bench file holds it alone; a tuning run's file holds every candidate, and
    the winner is the passed finalist (the records re-measured in rounds) of the least median, as
    src/tune/tuner.cpp picks it: none where finalists were measured and none passed."""
    kernels = [r for r in records if r["role"] != "baseline"]
    passed = [r for r in kernels if r["disposition"] == "passed"]
    if any(r.get("rounds") for r in kernels):
        finalists = [r for r in passed if r.get("rounds")]
        return min(finalists, key=lambda r: r["time"]["median"]) if finalists else None
    return passed[0] if passed else None


def operand(rows, cols, row_major, dtype):
    """A rows x cols matrix stored row- or column-major (a transposed view of a contiguous one)."""
    if row_major:
        return torch.randn(rows, cols, device="cuda", dtype=torch.float32).to(dtype)
    return torch.randn(cols, rows, device="cuda", dtype=torch.float32).to(dtype).t()


def call_for(m, n, k, dtype, layout, scaling="tensor"):
    if dtype == "fp8":  # _scaled_mm wants A row-major and B column-major (layout rc)
        a = operand(m, k, True, torch.float8_e4m3fn)
        b = operand(k, n, False, torch.float8_e4m3fn)
        if scaling == "block":
            # A's scales (M, K/128) with M contiguous; B's, for b.t() (N x K), (N/128, K/128) row-major.
            kb = -(-k // 128)
            scale_a = torch.rand(kb, m, device="cuda").add_(0.5).t()
            scale_b = torch.rand(-(-n // 128), kb, device="cuda").add_(0.5).t()
        else:
            scale_a = scale_b = torch.ones((), device="cuda")
        # ktune's cuBLASLt baseline (src/families/gemm.cpp) sets fast accumulation with per-tensor
        # scales and leaves it off with block scales, so this does too: _scaled_mm's default (off)
        # would time another cuBLASLt configuration than the one ktune's ratios are against.
        fast_accum = scaling == "tensor"
        return lambda: torch._scaled_mm(a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16,
                                        use_fast_accum=fast_accum)
    t = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}[dtype]
    a = operand(m, k, layout[0] == "r", t)
    b = operand(k, n, layout[1] == "r", t)
    return lambda: torch.matmul(a, b)


def median(rec):
    return rec["time"]["median"] if rec.get("time") else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--json")
    args = parser.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    rows = []
    for p in load_json(args.results)["problems"]:
        prob = p["problem"]
        if prob["family"] not in ("gemm", "gemm_nvfp4"):
            continue
        if prob["family"] == "gemm_nvfp4":  # x (M x K) @ W.t(), W N x K: layout rc
            prob = dict(prob, layout="rc")
        m, n, k = (prob["dims"][d] for d in ("M", "N", "K"))
        scaling = prob.get("scaling", "tensor")
        label = f"{m}x{n}x{k} {prob['dtype']} {prob['layout']}" + (f" {scaling}" if scaling != "tensor" else "")
        base = next((r for r in p["records"] if r["role"] == "baseline"), None)
        best = winner(p["records"])
        try:
            torch_ms = do_bench(call_for(m, n, k, prob["dtype"], prob["layout"], scaling), warmup=100, rep=300,
                                return_mode="median")
        except Exception as e:  # the library refuses the shape (fp8 leading dimensions) or the scales
            torch_ms, why = None, str(e).splitlines()[0][:80]
        else:
            why = ""
        row = {"problem": label, "torch_ms": torch_ms, "ktune_cublas_ms": base and median(base),
               "ktune_best_ms": best and median(best)}
        rows.append(row)
        lib, ours = row["ktune_cublas_ms"], row["ktune_best_ms"]
        apart = f"{100 * (lib / torch_ms - 1):+6.1f}%" if lib and torch_ms else "     -"
        vs_torch = f"{torch_ms / ours:6.3f}x" if ours and torch_ms else "     -"
        print(f"torch-check {label:28s} torch {torch_ms or 0:8.4f} ms  ktune's cuBLAS {lib or 0:8.4f} ms ({apart})"
              f"  ktune {ours or 0:8.4f} ms  ktune vs torch {vs_torch} {why}")
    apart = [math.log(r["ktune_cublas_ms"] / r["torch_ms"]) for r in rows if r["ktune_cublas_ms"] and r["torch_ms"]]
    if apart:
        print(f"torch-check cuBLAS timings apart: median {100 * (math.exp(sorted(apart)[len(apart) // 2]) - 1):+.1f}%,"
              f" largest {100 * max(abs(math.exp(x) - 1) for x in apart):.1f}% over {len(apart)} problems")
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
