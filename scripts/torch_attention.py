"""PyTorch's scaled-dot-product attention as a reference point for ktune's attention family: each
backend PyTorch offers on this machine (cuDNN, FlashAttention-2, memory-efficient), on the
problems of a ktune suite, verified against an fp32 torch computation and timed by
triton.testing.do_bench (median, with its own L2 flush between calls). Run on the GPU machine in
the same device call as ktune's bench, so the numbers share the GPU's state.

Usage: python3 scripts/torch_attention.py SUITE.json [--json OUT.json]
FLOPs as ktune counts them: 4 * batch * heads * seqlen * seqlen_kv * head_dim, halved when causal.
A causal mask with seqlen < seqlen_kv is bottom-right aligned in ktune; PyTorch's is_causal is
top-left, so those problems are skipped here (none of the default suite's are both).
"""
import argparse
import json
import math
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

from attention_names import problem_text

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
BACKENDS = {
    "cudnn": SDPBackend.CUDNN_ATTENTION,
    "flash": SDPBackend.FLASH_ATTENTION,
    "efficient": SDPBackend.EFFICIENT_ATTENTION,
}


def run_problem(p):
    b, h, d = p["batch"], p["heads"], p["head_dim"]
    hkv = p.get("kv_heads", h)
    sq = p["seqlen"]
    skv = p.get("seqlen_kv", sq)
    causal = p.get("causal", "no") == "yes"
    dtype = DTYPES[p.get("dtype", "fp16")]
    if causal and sq != skv:
        return {"problem": problem_text(p), "skipped": "causal with seqlen != seqlen_kv (PyTorch aligns top-left)"}
    bshd = p.get("layout", "bhsd") == "bshd"

    def make(heads, s):
        # bshd: the memory holds [b, s, h, d]; SDPA takes the [b, h, s, d] view of it.
        if bshd:
            return torch.randn(b, s, heads, d, device="cuda", dtype=dtype).transpose(1, 2)
        return torch.randn(b, heads, s, d, device="cuda", dtype=dtype)

    q, k, v = make(h, sq), make(hkv, skv), make(hkv, skv)
    flops = 4.0 * b * h * sq * skv * d / (2 if causal else 1)
    # fp32 reference, K and V repeated over each group's query heads.
    kr = k.float().repeat_interleave(h // hkv, dim=1)
    vr = v.float().repeat_interleave(h // hkv, dim=1)
    ref = F.scaled_dot_product_attention(q.float(), kr, vr, is_causal=causal) if b * h * sq * skv <= 2**31 else None
    out = {"problem": problem_text(p), "flops": flops, "backends": {}}
    for name, backend in BACKENDS.items():
        entry = {}
        try:
            with sdpa_kernel([backend]):
                fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=hkv != h)
                o = fn()
                torch.cuda.synchronize()
                if ref is not None:
                    entry["max_abs_err"] = (o.float() - ref).abs().max().item()
                ms = do_bench(fn, warmup=25, rep=200, return_mode="median")
            entry["ms"] = ms
            entry["tflops"] = flops / ms / 1e9
        except Exception as e:  # a backend that does not take this problem
            entry["error"] = str(e).splitlines()[0][:160]
        out["backends"][name] = entry
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("suite")
    parser.add_argument("--json")
    args = parser.parse_args()
    problems = json.load(open(args.suite))["problems"]
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name()}")
    results = []
    for p in problems:
        r = run_problem(p)
        results.append(r)
        # Rewritten after every problem: a run cut off by a call's time limit keeps what it measured.
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        if "skipped" in r:
            print(f"{r['problem']:<40} skipped: {r['skipped']}")
            continue
        cells = []
        for name, e in r["backends"].items():
            if "tflops" in e:
                err = f" err {e['max_abs_err']:.1e}" if "max_abs_err" in e else ""
                cells.append(f"{name} {e['ms']:.4f} ms {e['tflops']:6.1f} TFLOPS{err}")
            else:
                cells.append(f"{name} n/a")
        print(f"{r['problem']:<40} " + " | ".join(cells))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
