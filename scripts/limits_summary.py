"""Issue 37's categories on one page: ktune's tuned kernel (`ktune bench suites/limits.json`) against
cuDNN and the copy roof timed in that bench, and against PyTorch eager and torch.compile timed in
the same device call (scripts/torch_examples.py --suite suites/limits.json). Ratios are of
medians: above 1 means ktune is faster. "of roof" is ktune's rate over the copy roof's, quoted
where the problem moves at least 64 MB (below that a copy's own launch cost dominates it).

Usage: python3 scripts/limits_summary.py BENCH.json TORCH.json > limits.md
"""
import json
import sys

from examples_summary import problem_key, shape, winner
from results_file import load_json


def baseline(records, source):
    return next((r for r in records if r.get("role") == "baseline" and r.get("source") == source and r.get("time")),
                None)


def main():
    bench = load_json(sys.argv[1])
    torch_data = json.load(open(sys.argv[2]))
    torch_by_key = {(r["family"], tuple(sorted(r["dims"].items())), r["dtype"]): r for r in torch_data["rows"]}
    out = [f"# Issue 37's limits on {bench['device']['name']}", "",
           f"ktune: `{bench['meta'].get('command', '')}`; PyTorch {torch_data['torch']} under triton's do_bench in the "
           "same device call (scripts/torch_examples.py). Ratios: the other's median over ktune's.", "",
           "| problem | MB | ktune ms | GB/s | of roof | vs cuDNN | vs eager | vs compile | vs best | configuration |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    worst = None
    for p in bench["problems"]:
        recs = p["records"]
        name = f"{p['problem']['family']} {shape(p['problem'])}"
        best = winner(recs)
        if not best:
            why = next((r.get("reason", "") for r in recs if r.get("role") == "candidate"), "")
            out.append(f"| {name} | | no candidate passed: {why[:160]} |")
            continue
        ms = best["time"]["median"]
        mb = p["cost"]["min_bytes"] / 1e6
        copy, cudnn = baseline(recs, "copy"), baseline(recs, "cudnn")
        t = torch_by_key.get(problem_key(p["problem"]), {})
        others = {}
        if cudnn:
            others["cuDNN"] = cudnn["time"]["median"]
        for mode in ("eager", "compile"):
            if t.get(mode) and t[mode].get("correct"):
                others[mode] = t[mode]["ms"]
        ratio = {k: v / ms for k, v in others.items()}
        vs_best = min(ratio.values()) if ratio else None
        if vs_best is not None and (worst is None or vs_best < worst[0]):
            worst = (vs_best, name)
        cell = lambda k: f"{ratio[k]:.2f}x" if k in ratio else "-"
        roof = f"{100 * best['gbps'] / copy['gbps']:.1f}%" if copy and mb >= 64 else "-"
        params = " ".join(f"{k}={v}" for k, v in sorted(best.get("params", {}).items()))
        out.append(f"| {name} | {mb:.1f} | {ms:.4f} | {best['gbps']:.0f} | {roof} | {cell('cuDNN')} | {cell('eager')} | "
                   f"{cell('compile')} | {f'{vs_best:.2f}x' if vs_best else '-'} | {best['config_name']} `{params}` |")
    if worst:
        out += ["", f"Lowest against the best of the others: {worst[0]:.2f}x ({worst[1]})."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
