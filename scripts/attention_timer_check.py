"""ktune's timing of cuDNN's fused attention against PyTorch's call of the same library under
triton's do_bench, problem by problem: an independent timer for the ratios `ktune bench` reports
on an attention suite. Both files come from one device call (scripts/gpu-check.sh's attention
stage writes them side by side); this runs anywhere, with no GPU and no torch.

Usage: python3 scripts/attention_timer_check.py BENCH.json TORCH.json
Prints, per problem, ktune's winner and ktune's cuDNN median, PyTorch's cuDNN median, their
difference, and ktune's winner against PyTorch's cuDNN; then the median and largest difference
and the geometric means of the two ratios.
"""
import json
import math
import statistics
import sys

from attention_names import problem_text
from results_file import load_json


def median_ms(records, role, source):
    for r in records:
        if r.get("role") == role and r.get("source") == source and r.get("time"):
            return r["time"]["median"]
    return None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bench = load_json(sys.argv[1])
    torch = {t["problem"]: t for t in json.load(open(sys.argv[2]))}
    diffs, ours_vs_ktune_cudnn, ours_vs_torch_cudnn = [], [], []
    print(f"{'problem':40} {'ktune':>8} {'cuDNN':>8} {'torch':>8} {'diff':>7} {'vs cuDNN':>9} {'vs torch':>9}")
    for p in bench["problems"]:
        key = problem_text(p["problem"])
        ours = median_ms(p["records"], "candidate", "ktune")
        cudnn = median_ms(p["records"], "baseline", "cudnn")
        t = torch.get(key, {}).get("backends", {}).get("cudnn", {}).get("ms")
        if ours is None or cudnn is None or t is None:
            print(f"{key:40} (missing: ktune {ours}, cuDNN {cudnn}, torch {t})")
            continue
        diff = cudnn / t - 1
        diffs.append(abs(diff))
        ours_vs_ktune_cudnn.append(cudnn / ours)
        ours_vs_torch_cudnn.append(t / ours)
        print(f"{key:40} {ours:8.4f} {cudnn:8.4f} {t:8.4f} {diff:+7.1%} {cudnn / ours:8.3f}x {t / ours:8.3f}x")
    if not diffs:
        sys.exit("no problem in both files")
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
    print(f"ktune's cuDNN against PyTorch's: median difference {statistics.median(diffs):.1%}, "
          f"largest {max(diffs):.1%} over {len(diffs)} problems")
    print(f"geometric mean of ktune's winner: {geo(ours_vs_ktune_cudnn):.3f}x ktune's cuDNN timing, "
          f"{geo(ours_vs_torch_cudnn):.3f}x PyTorch's")


if __name__ == "__main__":
    main()
