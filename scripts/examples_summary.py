"""The declared-family examples on one page: ktune's tuned kernel against the copy roof (from `ktune
bench examples/examples.suite.json`) and against PyTorch eager and torch.compile timed in the
same device call (scripts/torch_examples.py), and what the planted-fault sweeps did with each
fault (`ktune FAMILY ... --config examples/X/planted/X_planted.sweep.json --exhaustive`).

Usage: python3 scripts/examples_summary.py BENCH.json TORCH.json [PLANTED.json ...] > summary.md
"""
import collections
import json
import sys
from results_file import load_json


def problem_key(p):
    dims = {k: v for k, v in p["dims"].items()}
    return (p["family"], tuple(sorted(dims.items())), p["dtype"])


def shape(p):
    return " ".join(f"{k}={v}" for k, v in p["dims"].items()) + f" {p['dtype']}"


def winner(records):
    """The finalists first, then the lowest median (store/results.cpp's recorded_winner)."""
    passed = [r for r in records if r.get("role") == "candidate" and r.get("disposition") == "passed" and r.get("time")]
    if not passed:
        return None
    return min(passed, key=lambda r: (not r.get("rounds"), r["time"]["median"]))


def bench_table(bench, torch_rows):
    torch_by_key = {}
    for row in torch_rows:
        torch_by_key[(row["family"], tuple(sorted(row["dims"].items())), row["dtype"])] = row
    lines = ["| problem | ktune GB/s | copy roof GB/s | of copy roof | PyTorch eager GB/s | torch.compile GB/s | vs eager | vs compile | configuration |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for p in bench["problems"]:
        recs = p["records"]
        base = next((r for r in recs if r.get("role") == "baseline" and r.get("source") == "copy"), None)
        best = winner(recs)
        if not best:
            reasons = collections.Counter(r.get("reason", "") for r in recs if r.get("role") == "candidate")
            lines.append(f"| {p['problem']['family']} {shape(p['problem'])} | no candidate passed: {reasons.most_common(2)} |")
            continue
        t = torch_by_key.get(problem_key(p["problem"]))
        eager = t and t.get("eager")
        comp = t and t.get("compile")
        params = " ".join(f"{k}={v}" for k, v in sorted(best.get("params", {}).items()))
        ours = best["gbps"]
        cells = [
            f"{p['problem']['family']} {shape(p['problem'])}",
            f"{ours:.0f}",
            f"{base['gbps']:.0f}" if base else "-",
            f"{100 * best.get('ratio_vs_baseline', best.get('ratio_vs_reference', 0)):.1f}%" if base else "-",
            f"{eager['gbps']:.0f}" if eager else "-",
            f"{comp['gbps']:.0f}" if comp else "-",
            f"{ours / eager['gbps']:.2f}x" if eager else "-",
            f"{ours / comp['gbps']:.2f}x" if comp else "-",
            f"`{params}`",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def planted_table(path):
    data = load_json(path)
    lines = []
    for p in data["problems"]:
        by_plant = collections.defaultdict(lambda: collections.Counter())
        reasons = collections.defaultdict(collections.Counter)
        for r in p["records"]:
            if r.get("role") != "candidate" or "PLANT" not in r.get("params", {}):
                continue
            plant = r["params"]["PLANT"]
            by_plant[plant][r["disposition"]] += 1
            if r["disposition"] != "passed" and r.get("reason"):
                reason = r["reason"]
                reasons[plant][reason[:140]] += 1
        best = winner(p["records"])
        lines.append(f"**{p['problem']['family']} {shape(p['problem'])}** ({path.split('/')[-1]}): winner "
                     f"PLANT={best['params']['PLANT'] if best else 'none'}")
        lines.append("")
        lines.append("| PLANT | dispositions | most common reason |")
        lines.append("|---:|---|---|")
        for plant in sorted(by_plant):
            common = reasons[plant].most_common(1)
            lines.append(f"| {plant} | {dict(by_plant[plant])} | {common[0][0] if common else ''} |")
        lines.append("")
    return lines


def main():
    bench = load_json(sys.argv[1])
    torch_data = json.load(open(sys.argv[2]))
    out = [f"# ktune's declared-family examples on {bench['device']['name']}", "",
           f"ktune: `{bench['meta'].get('command', '')}`; PyTorch {torch_data['torch']} under triton's do_bench in the same "
           "device call (scripts/torch_examples.py).", ""]
    out += bench_table(bench, torch_data["rows"])
    out += ["", "## Planted faults", ""]
    for path in sys.argv[3:]:
        out += planted_table(path)
    print("\n".join(out))


if __name__ == "__main__":
    main()
